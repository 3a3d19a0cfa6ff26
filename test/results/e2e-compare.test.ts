// test-pass: quiet
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';
import { e2eRuns } from '../support/e2e-runs.ts';

/**
 * compare on result files of real runs (the unit tests use generated fixtures): the embedded
 * reference server, once with added latency. Quiet: it compares the latencies of separate runs.
 * (Merging real shards: e2e-merge-shards.test.ts.)
 */
const { dir, profile, run } = e2eRuns('rpcload-e2e-compare-');

describe('compare on real runs', () => {
  const load = { clients: { pattern: 'client-{n}', count: 4 }, phases: [{ duration: '8s', rate: 50 }] };

  it('flags a server made slower and does not flag a rerun of the same setup', async () => {
    const normal = profile('normal', load);
    const slower = profile('slower', { ...load, server: { addedLatency: '200ms' } });
    // The four runs side by side, so each compared pair shares whatever else the machine is doing
    // (a run made slower by a busy CI neighbour is, truthfully, slower).
    await Promise.all([
      run(normal, join(dir, 'base.json')),
      run(normal, join(dir, 'rerun.json')),
      run(normal, join(dir, 'base-2.json')),
      run(slower, join(dir, 'slow.json')),
    ]);

    const same = await runRpcload(['compare', join(dir, 'base.json'), join(dir, 'rerun.json'), '--format', 'json']);
    expect(same.code, same.stdout).toBe(0);
    expect((JSON.parse(same.stdout) as { regression: boolean }).regression).toBe(false);

    const slow = await runRpcload(['compare', join(dir, 'base-2.json'), join(dir, 'slow.json'), '--format', 'markdown']);
    expect(slow.code).toBe(1);
    // the median moves far beyond its noise; a p99 over 400 requests may honestly not
    expect(slow.stdout).toMatch(/\| overall \| p50 \|.*\*\*regression\*\* \(`p50:\+10%\+1ms`\)/);
  }, 90_000);
});
