/**
 * `rpcload capacity PROFILE --workload NAME` on a profile of two workloads: the answer names the
 * workload and its unit, the result file's capacity record says which; without --workload the
 * command refuses in one line naming the workloads (exit 2).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-capacity-workload-cli-');

/** browse: two clients of 10 requests/s each (their quotas bind first); orders beside it at 4/s. */
function twoWorkloads(): string {
  const path = join(dir, 'two.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'two',
      server: { capacity: { rate: 200 } },
      clients: { count: 4 },
      scenarios: [
        { name: 'look', steps: [{ method: 'ping' }] },
        { name: 'order', steps: [{ method: 'echo' }] },
      ],
      workloads: [
        {
          name: 'browse',
          clients: { pattern: 'web-{n}', count: 2 },
          scenarios: ['look'],
          phases: [{ duration: '1s', rate: 1 }],
        },
        { name: 'orders', scenarios: ['order'], phases: [{ duration: '1m', rate: 4 }] },
      ],
      thresholds: ['p99 < 500ms'],
      capacity: { start: 10, warmUp: '0s', hold: '1s', confirm: '1s', maxLag: '1s' },
    }),
  );
  return path;
}

describe('rpcload capacity --workload', () => {
  it('names the workload and its unit in the answer and in the capacity record', async () => {
    const out = join(dir, 'browse.json');
    const run = await runRpcload(['capacity', twoWorkloads(), '--workload', 'browse', '--out', out, '--ui', 'none']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(
      /^browse: capacity at least 18 requests\/s \(capacity bound by client quotas: 2 clients × 10\/s/,
    );
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(validateRunResult(result)).toEqual([]);
    expect(result.capacity).toMatchObject({ workload: 'browse', ratePerS: 18 });
    expect(result.capacity!.slo).toContain('p99{workload:browse} < 500ms');
    // The other workload ran in every step, beside the searched one.
    for (const step of result.capacity!.steps)
      expect(result.byPhase[`${step.phase} orders/phase-1`]?.requests).toBeGreaterThan(0);
  }, 60_000);

  it.each([
    [[], 'expected --workload NAME (or capacity.workload): the profile has 2 workloads (browse, orders)'],
    [['--workload', 'nope'], 'a workload of the profile (browse, orders)'],
  ])('%j: refuses in one line (exit 2)', async (flags, text) => {
    const run = await runRpcload(['capacity', twoWorkloads(), ...flags, '--ui', 'none']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(text);
  });

  it('searches the speed of a replay workload beside a rate: 18× the recording is what the server leaves it', async () => {
    // 10 calls/s at 1× by 40 callers (0.25/s each: their quotas are far); the server sustains
    // 200/s and the background takes 20/s of it, so the recording has 180/s: 18×.
    const recording = join(dir, 'recorded.jsonl');
    const calls = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({ t: i * 100, client: `client-${i + 1}`, method: 'ping', args: {} }),
    );
    writeFileSync(recording, `${calls.join('\n')}\n`);
    const profile = join(dir, 'replay-beside.json');
    writeFileSync(
      profile,
      JSON.stringify({
        name: 'replay-beside',
        server: { capacity: { rate: 200, workers: 4 } },
        clients: { pattern: 'client-{n}', count: 40 },
        scenarios: [{ name: 'look', steps: [{ method: 'echo' }] }],
        workloads: [
          { name: 'recorded', replay: { file: recording } },
          {
            name: 'background',
            clients: { pattern: 'bg-{n}', count: 4 },
            scenarios: ['look'],
            phases: [{ duration: '1m', rate: 20 }],
          },
        ],
        http: { connections: 32, maxInFlight: 5000 },
        thresholds: ['p99 < 400ms'],
        // A failed step runs twice: a bracket of 10 % spares the bisection's last, failing, pair of steps.
        capacity: {
          workload: 'recorded',
          start: 8,
          warmUp: '1s',
          hold: '2s',
          confirm: '0s',
          maxLag: '1s',
          tolerance: 0.1,
        },
      }),
    );
    const out = join(dir, 'replay-beside-result.json');
    const run = await runRpcload(['capacity', profile, '--out', out, '--ui', 'none'], { timeoutMs: 110_000 });
    const answer = run.stdout.split('\n')[0]!;
    process.stdout.write(`[capacity --workload recorded] ${answer}\n`);
    expect(answer).toMatch(/^recorded: capacity [\d.]+× the recording \([\d,.]+ calls\/s; /);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(validateRunResult(result)).toEqual([]);
    expect(result.capacity).toMatchObject({ workload: 'recorded' });
    expect(Math.abs(result.capacity!.speed! - 18) / 18).toBeLessThanOrEqual(0.12);
    for (const step of result.capacity!.steps)
      expect(result.byPhase[`${step.phase} background/phase-1`]?.requests).toBeGreaterThan(0);
  }, 120_000);
});
