// test-pass: quiet
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addHistograms, createLatencyHistogram, decodeHistogram, percentilesMs } from '../../src/metrics/hdr.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * compare and merge on result files of real runs (the unit tests use generated fixtures): the
 * embedded reference server, once with added latency, and two shards run side by side.
 */
const dir = useTempDir('rpcload-e2e-');
mkdirSync(join(dir, 'profiles'));

function profile(name: string, body: Record<string, unknown>): string {
  const path = join(dir, 'profiles', `${name}.json`);
  writeFileSync(path, JSON.stringify({ name: 'nightly', scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }, { name: 'echo', steps: [{ method: 'echo', args: { n: '{{int 1 9}}' } }] }], ...body }));
  return path;
}

function read(path: string): RunResult {
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateRunResult(value)).toEqual([]);
  return value as RunResult;
}

async function run(profilePath: string, out: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const result = await runRpcload(['run', profilePath, '--out', out, '--ui', 'none', ...args], { env });
  expect(result.code, result.stderr).toBe(0);
  return read(out);
}

describe('compare on real runs', () => {
  const load = { clients: { pattern: 'client-{n}', count: 4 }, phases: [{ duration: '8s', rate: 50 }] };

  it('flags a server made slower and does not flag a rerun of the same setup', async () => {
    const normal = profile('normal', load);
    const slower = profile('slower', { ...load, server: { addedLatency: '200ms' } });
    // Each compared pair runs side by side, so both runs share whatever else the machine is doing
    // (a run made slower by a busy CI neighbour is, truthfully, slower).
    await Promise.all([run(normal, join(dir, 'base.json')), run(normal, join(dir, 'rerun.json'))]);
    await Promise.all([run(normal, join(dir, 'base-2.json')), run(slower, join(dir, 'slow.json'))]);

    const same = await runRpcload(['compare', join(dir, 'base.json'), join(dir, 'rerun.json'), '--format', 'json']);
    expect(same.code, same.stdout).toBe(0);
    expect((JSON.parse(same.stdout) as { regression: boolean }).regression).toBe(false);

    const slow = await runRpcload(['compare', join(dir, 'base-2.json'), join(dir, 'slow.json'), '--format', 'markdown']);
    expect(slow.code).toBe(1);
    // the median moves far beyond its noise; a p99 over 400 requests may honestly not
    expect(slow.stdout).toMatch(/\| overall \| p50 \|.*\*\*regression\*\* \(`p50:\+10%\+1ms`\)/);
  }, 90_000);
});

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
