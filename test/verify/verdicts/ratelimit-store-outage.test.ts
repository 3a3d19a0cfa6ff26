import { describe, expect, it } from 'vitest';
import type { RoundTrip } from '../../../src/verify/round-trip.ts';
import type { HookRun } from '../../../src/verify/verdicts/hook-runs.ts';
import { judgeRestart, type RestartObservation } from '../../../src/verify/verdicts/ratelimit-restart.ts';
import { judgeStoreOutage, type StoreOutageObservation } from '../../../src/verify/verdicts/ratelimit-store-outage.ts';
import { admitted, ex } from '../../support/round-trips.ts';

const hook = (name: HookRun['hook'], startedMs: number, over: Partial<HookRun> = {}): HookRun => ({
  hook: name,
  command: name === 'fault' ? 'redis-cli shutdown nosave' : 'redis-server --daemonize yes',
  startedMs,
  durationMs: 20,
  exitCode: 0,
  signal: null,
  timedOut: false,
  stdout: [],
  stderr: [],
  ...over,
});
const unavailable = (count: number, fromMs: number): RoundTrip[] =>
  Array.from({ length: count }, (_, i) => ({
    ...ex(fromMs + i * 50, 'admitted', { status: 503 }),
    outcome: 'error:unexpected_error',
  }));
const refusals = (count: number, fromMs: number): RoundTrip[] =>
  Array.from({ length: count }, (_, i) => ex(fromMs + i * 50, 'refused', { retryAfterS: 1 }));

/** Limit 10 per 1 s: 5 spent, then 20 sent at twice the rate while the store is down. */
const outage = (during: RoundTrip[], over: Partial<StoreOutageObservation> = {}): StoreOutageObservation => ({
  limit: 10,
  windowMs: 1000,
  hookTimeoutMs: 60_000,
  declared: null,
  spent: admitted(5, 0),
  fault: hook('fault', 10),
  outage: during,
  heal: hook('heal', 1040),
  afterHeal: ex(1070, 'admitted'),
  ...over,
});

describe('ratelimit.store_outage verdict', () => {
  it.each([
    // everything through: beyond the 15 a limiter that still limits admits
    [
      'fail-open, not judged',
      outage(admitted(20, 40, 50)),
      'pass',
      /^failed open: 20 of 20 .* 5 more than a limiter that still limits admits \(15: the 5 left of the budget plus one whole window\) — not judged/,
    ],
    [
      'fail-open, declared open',
      outage(admitted(20, 40, 50), { declared: 'open' }),
      'pass',
      /^as declared \(--outage-policy open\): the limiter failed open/,
    ],
    [
      'fail-open, declared closed',
      outage(admitted(20, 40, 50), { declared: 'closed' }),
      'fail',
      /^declared --outage-policy closed, but the limiter failed open: 20 of 20/,
    ],
    // every request refused with 429
    [
      'closed with 429',
      outage(refusals(20, 40), { declared: 'closed' }),
      'pass',
      /failed closed with 429: refused all 20 answered requests/,
    ],
    // every request answered 503
    [
      'closed with 5xx',
      outage(unavailable(20, 40), { declared: 'closed' }),
      'pass',
      /failed closed with 5xx \(503\): refused all 20/,
    ],
    [
      'closed, declared open',
      outage(unavailable(20, 40), { declared: 'open' }),
      'fail',
      /^declared --outage-policy open, but the limiter failed closed with 5xx/,
    ],
    // an in-memory fallback: the rest of the budget, then 429s
    [
      'kept limiting',
      outage([...admitted(5, 40, 50), ...refusals(15, 300)]),
      'pass',
      /failed closed with 429: admitted 5 \(5 were left of the budget\), then refused 15/,
    ],
    // nothing answered: the fault broke the whole API
    [
      'no answers',
      outage([ex(40, 'failed'), ex(90, 'failed')]),
      'skip',
      /no request was answered while the store was down \(transport:ECONNRESET\)/,
    ],
    // the fault hook failed: nothing to read
    [
      'fault hook failed',
      outage([], { fault: hook('fault', 10, { exitCode: 1, stderr: ['Could not connect to Redis'] }) }),
      'skip',
      /^the fault hook exited with code 1: Could not connect to Redis$/,
    ],
    [
      'heal hook timed out',
      outage(admitted(20, 40, 50), { heal: hook('heal', 1040, { exitCode: null, signal: 'SIGKILL', timedOut: true }) }),
      'skip',
      /^the heal hook did not finish within its 60 s deadline/,
    ],
    // refused before half the budget: not an idle client
    [
      'budget not whole',
      outage([], { spent: [...admitted(2, 0), ex(3, 'refused')] }),
      'skip',
      /refused after 2 of the 5 requests spent before the fault/,
    ],
  ] as const)('%s', (_name, observation, verdict, detail) => {
    const result = judgeStoreOutage(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('keeps the observed policy and the hooks in the evidence', () => {
    const result = judgeStoreOutage(outage(unavailable(20, 40)));
    expect(result.evidence).toMatchObject({
      observedPolicy: { policy: 'closed', refusedWith: '5xx' },
      fault: { hook: 'fault', exitCode: 0 },
    });
    expect(result.notes).toContain('observed policy reported, not judged (no --outage-policy)');
  });
});

/** Limit 10 per 2 s: spent by 20 ms, refused announcing a reset 2 s ahead (not before 1.02 s); restarted by 100 ms. */
const restart = (after: RoundTrip[], over: Partial<RestartObservation> = {}): RestartObservation => ({
  limit: 10,
  windowMs: 2000,
  hookTimeoutMs: 60_000,
  spent: [...admitted(10, 0, 2), ex(20, 'refused', { retryAfterS: 2 })],
  spentStop: 'refused',
  fault: hook('fault', 30),
  heal: hook('heal', 60),
  after,
  ...over,
});

describe('ratelimit.restart verdict', () => {
  it.each([
    [
      'budget survives',
      restart(refusals(5, 100)),
      'pass',
      /^still refused after the restart: 5 request\(s\) from 0\.1 s until the announced reset \(not before 1 s\)/,
    ],
    [
      'budget reset',
      restart([...admitted(10, 100), ex(110, 'refused', { retryAfterS: 2 })]),
      'fail',
      /^the restart handed out a fresh budget: 10 admitted after it \(the first at 0\.1 s\), before the reset announced/,
    ],
    // admissions only after the earliest possible reset: not judged
    [
      'admitted after the reset',
      restart([...refusals(3, 100), ex(1500, 'admitted')]),
      'pass',
      /^still refused after the restart: 3 request/,
    ],
    [
      '5xx only after the restart',
      restart(unavailable(5, 100)),
      'skip',
      /no answer from the limiter after the restart/,
    ],
    [
      'restart too slow',
      restart([], { heal: hook('heal', 60, { durationMs: 1500 }) }),
      'skip',
      /the restart took until 1\.6 s, past the reset/,
    ],
    [
      'fault failed',
      restart([], { fault: hook('fault', 30, { exitCode: 127, stderr: ['sh: redis-cli: not found'] }) }),
      'skip',
      /^the fault hook exited with code 127: sh: redis-cli: not found$/,
    ],
  ] as const)('%s', (_name, observation, verdict, detail) => {
    const result = judgeRestart(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });
});
