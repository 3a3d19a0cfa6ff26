import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addHistograms, createLatencyHistogram, decodeHistogram, percentilesMs } from '../../src/metrics/hdr.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runRpcload } from '../support/cli.ts';
import { e2eRuns } from '../support/e2e-runs.ts';

/**
 * merge on result files of real shards run side by side (the unit tests use generated fixtures):
 * exact totals and percentiles, checked against the server's own count. Nothing here compares
 * latencies between runs, so it runs beside other test files.
 */
const { dir, profile, read, run } = e2eRuns('rpcload-e2e-merge-');

describe('merge on real shards', () => {
  it('adds two shards run side by side exactly: totals, and percentiles of the union of samples', async () => {
    const server = await startServer({ limit: 10_000 });
    try {
      const shard = (first: number): string =>
        profile(`shard-${first}`, { clients: { pattern: 'client-{n}', start: first, count: 3, secret: '${SECRET}' }, phases: [{ duration: '5s', rate: 40 }] });
      const env = { SECRET: 'demo-secret' };
      const [a, b] = await Promise.all([
        run(shard(1), join(dir, 'shard-a.json'), ['--target', server.url], env),
        run(shard(4), join(dir, 'shard-b.json'), ['--target', server.url], env),
      ]);
      const merge = await runRpcload(['merge', join(dir, 'shard-a.json'), join(dir, 'shard-b.json'), '--out', join(dir, 'merged.json')]);
      expect(merge.code, merge.stderr).toBe(0);
      const merged = read(join(dir, 'merged.json'));

      expect(merged.run.shards).toBe(2);
      expect(merged.summary.requests).toBe(a.summary.requests + b.summary.requests);
      expect(merged.summary.outcomes.success).toBe(a.summary.outcomes.success! + b.summary.outcomes.success!);
      expect(Object.keys(merged.byClient).sort()).toEqual([...Object.keys(a.byClient), ...Object.keys(b.byClient)].sort());
      const union = addHistograms([decodeHistogram(a.histograms.latency), decodeHistogram(b.histograms.latency)], createLatencyHistogram);
      expect(merged.summary.latencyMs).toEqual(percentilesMs(union));
      // The server saw exactly what the two shards sent.
      const serverAdmitted = Object.values(server.stats().byClient).reduce((sum, c) => sum + c.admitted, 0);
      expect(serverAdmitted).toBe(merged.summary.requests);
    } finally {
      await server.close();
    }
  }, 60_000);
});
