/**
 * A broken limiter never passes a CI gate (issue 28 §11): when a check a run judged from its own
 * traffic fails — here `ratelimit.threshold` against a server admitting one request over its
 * quota — `run`, `capacity` and `merge` exit 1, as their docs say. `run` used to print ✗, write
 * JUnit `failures="1"` and exit 0.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { capacitySession } from '../../src/session/capacity/capacity-session.ts';
import { runRpcload } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rpcload-failed-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The embedded reference server admitting limit + 1 per window (10 per 2 s), and one greedy client
 * of three (10 of every 12 arrivals at 15/s: 2.5× its quota), as in the passive-check tests.
 */
const BROKEN_LIMITER = {
  name: 'broken-limiter',
  server: { faults: ['limit-plus-one' as const] },
  clients: { pattern: 'client-{n}', count: 3, weights: { 'client-1': 10 } },
  scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
  phases: [{ name: 'load', duration: '8s', rate: 15 }],
  rateLimit: { limit: 10, window: '2s', on429: 'honour' as const },
};

describe('a failed passive check fails the command', () => {
  it('run exits 1 (JUnit failures="1"), and so does merge of its file', async () => {
    const profile = join(dir, 'run.json');
    writeFileSync(profile, JSON.stringify(BROKEN_LIMITER));
    const out = join(dir, 'run-result.json');
    const junit = join(dir, 'run.xml');
    const run = await runRpcload(['run', profile, '--out', out, '--junit', junit, '--ui', 'none'], {
      timeoutMs: 90_000,
    });
    const result = await readResultFile(out);
    const threshold = result.checks.find((c) => c.id === 'ratelimit.threshold');
    expect(threshold?.verdict, JSON.stringify(threshold)).toBe('fail');
    expect(result.thresholds).toEqual([]);
    expect(run.code, run.stderr).toBe(1);
    expect(readFileSync(junit, 'utf8')).toMatch(/failures="1"/);

    // The same failing run as two hand-made parts: the merged check fails too.
    const copy = join(dir, 'run-copy.json');
    writeFileSync(copy, JSON.stringify({ ...result, run: { ...result.run, id: `${result.run.id}-copy` } }));
    const merged = await runRpcload(['merge', out, copy, '--force', '--out', join(dir, 'merged.json')]);
    expect(merged.code, merged.stderr).toBe(1);
  }, 120_000);

  it('capacity exits 1 when a step saw the limiter admit too many', async () => {
    const plan = buildPlan(
      {
        ...BROKEN_LIMITER,
        // Refused clients wait out Retry-After and the other five take their arrivals, so the step
        // still reaches its rate and passes. (Not 429 policy 'ignore': refused at once and readmitted
        // at the reset, the greedy client's windows then follow each other 2 s apart, at one phase of
        // the clock, and a clock-aligned limiter explains its one-over windows too — inconclusive.)
        clients: { ...BROKEN_LIMITER.clients, count: 6 },
        phases: [{ duration: '1s', rate: 1 }],
        // One step at 15/s, counting 429s as answers: the search ends at its max with that step's checks.
        capacity: {
          start: 15,
          max: 15,
          maxSteps: 1,
          include429: true,
          warmUp: '0s',
          hold: '8s',
          confirm: '0s',
          maxLag: '1s',
        },
      },
      { source: '' },
    );
    const session = await capacitySession({
      plan,
      outPath: join(dir, 'capacity.json'),
      signal: new AbortController().signal,
    });
    const threshold = session.result.checks.find((c) => c.id === 'ratelimit.threshold');
    expect(threshold?.verdict, JSON.stringify(threshold)).toBe('fail');
    expect(threshold?.evidence).toHaveProperty('byStep');
    // The search itself found its answer: exit 1 is the check's doing.
    expect(session.record.ratePerS, session.record.finding).toBe(15);
    expect(session.exitCode).toBe(1);
  }, 120_000);
});
