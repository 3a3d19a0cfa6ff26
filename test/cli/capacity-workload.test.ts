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
        { name: 'browse', clients: { pattern: 'web-{n}', count: 2 }, scenarios: ['look'], phases: [{ duration: '1s', rate: 1 }] },
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
    for (const step of result.capacity!.steps) expect(result.byPhase[`${step.phase} orders/phase-1`]?.requests).toBeGreaterThan(0);
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
});
