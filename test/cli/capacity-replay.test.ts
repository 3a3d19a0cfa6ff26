/**
 * `rpcload capacity --replay` end to end against the reference server (10 per 2 s per client): a
 * recording whose busiest caller reaches its quota at 1.25×. The search is limited by the quota —
 * said with its arithmetic, not as throughput — its answer lies in its bracket, every step offers
 * the schedule's rate (the recording's × the speed), and speeds print as ×.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import type { RemoteServerHandle } from '../../src/server/options.ts';
import { startServerInWorker } from '../../src/server/worker.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { runRpcload } from '../support/cli.ts';
import { DEMO_SECRET } from '../support/load-run.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-capacity-replay-cli-');
/** 8 calls per second at 1×: client-1 sends 4 (its quota is 5/s: 1.25×), client-2 and client-3 2 each. */
const CALLERS = ['client-1', 'client-2', 'client-1', 'client-3', 'client-1', 'client-2', 'client-1', 'client-3'];
const RECORDED_PER_S = CALLERS.length;

let server: RemoteServerHandle;
beforeAll(async () => {
  server = await startServerInWorker({ limit: 10, windowMs: 2000 });
});
afterAll(() => server.close());

describe('rpcload capacity --replay', () => {
  it('finds the quota-bound speed, says so with the quota arithmetic, and keeps its answer in its bracket', async () => {
    const recording = join(dir, 'mix.jsonl');
    const calls = Array.from({ length: 2 * RECORDED_PER_S }, (_, i) =>
      JSON.stringify({ t: (i * 1000) / RECORDED_PER_S, client: CALLERS[i % CALLERS.length], method: 'ping', args: {} }),
    );
    writeFileSync(recording, `${calls.join('\n')}\n`);
    const profile = join(dir, 'profile.json');
    writeFileSync(
      profile,
      JSON.stringify({
        name: 'replay-quota',
        clients: { pattern: 'client-{n}', count: 3, secret: DEMO_SECRET },
        replay: { file: recording },
        rateLimit: { limit: 10, window: '2s' },
        thresholds: ['p99 < 1s'],
        capacity: { start: 1, tolerance: 0.5, warmUp: '1s', hold: '1s', confirm: '2s', maxLag: '1s' },
      }),
    );
    const out = join(dir, 'capacity.json');
    const run = await runRpcload(['capacity', profile, '--target', server.url, '--out', out, '--ui', 'plain'], {
      timeoutMs: 90_000,
    });
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    const record = result.capacity!;
    const explain = `${run.stdout}\n${run.stderr}`;
    expect(validateRunResult(result)).toEqual([]);
    expect(run.code, explain).toBe(0);
    // The answer is the bracket's low end; the quota limited the search.
    expect(record.speed).toBe(record.bracket[0]);
    expect(record).toMatchObject({
      speed: 1,
      bracket: [1, 1.5],
      limitedBy: 'client quota',
      atLeast: true,
      ratePerS: RECORDED_PER_S,
    });
    expect(record.finding).toMatch(
      /^capacity at least 1× the recording \(8 calls\/s; bracket 1×–1\.5×\); limited by client quota \(.+ failed at 1\.5×: client-1 sends 4 calls\/s at 1× against its quota of 5\/s \(10 per 2 s\): at most 1\.25×/,
    );
    expect(record.confirmation).toMatchObject({ load: 1, passed: true });
    // Every step offers the schedule's rate: the recording's × the speed, the same at the same speed.
    for (const step of record.steps) expect(step.offeredPerS).toBe(step.load * RECORDED_PER_S);
    // Nowhere a speed read as a rate.
    expect(run.stdout).toMatch(/^\s+speed\s+offered\/s\s+achieved\/s/m);
    expect(run.stdout).toMatch(/^step 1\s+1×\s+8\.0\s/m);
    expect(run.stdout).not.toMatch(/\d\/s\s+\d+\.\d\s+\d/);
    expect(run.stderr).toContain('step 1: 1× · bracket [–, –]');
    // The first step at 2× shows 1× passed (step 2, or later when a starved machine made a 1× step fail once and run again).
    expect(run.stderr).toMatch(/step \d+: 2× · bracket \[1×, –\]/);
  }, 90_000);
});
