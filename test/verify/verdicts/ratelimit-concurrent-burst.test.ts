import { describe, expect, it } from 'vitest';
import {
  concurrentAttemptIsAmbiguous,
  judgeConcurrentBurst,
  type ConcurrentAttempt,
} from '../../../src/verify/verdicts/ratelimit-concurrent-burst.ts';
import { ex } from '../../support/round-trips.ts';

/** 15 requests sent within 2 ms: `admittedCount` admitted, the rest refused (answered ~20 ms later). */
function attemptOf(
  kind: ConcurrentAttempt['kind'],
  fromMs: number,
  admittedCount: number,
  failed = 0,
): ConcurrentAttempt {
  return {
    kind,
    roundTrips: Array.from({ length: 15 }, (_, i) =>
      ex(fromMs + i / 8, i < failed ? 'failed' : i < failed + admittedCount ? 'admitted' : 'refused', {
        doneMs: fromMs + 20 + i,
        retryAfterS: 1,
      }),
    ),
  };
}
const observe = (...attempts: ConcurrentAttempt[]) => ({ limit: 10, windowMs: 1000, attempts });

describe('judgeConcurrentBurst', () => {
  it.each([
    // an atomic counter: exactly the limit of 15 in flight
    [
      'atomic',
      observe(attemptOf('idle', 0, 10)),
      'pass',
      /10 of 15 requests in flight at once were admitted \(at most 10\)/,
    ],
    // a racy counter: all 15, twice
    [
      'racy',
      observe(attemptOf('idle', 0, 15), attemptOf('reset', 1040, 15)),
      'fail',
      /15 of 15 requests in flight at once were admitted; the limit is 10/,
    ],
    // fewer than the limit is not this check's failure (threshold's), but noted
    ['limit − 1', observe(attemptOf('idle', 0, 9)), 'pass', /9 of 15/],
    // connections reset: cannot count
    ['transport failures', observe(attemptOf('idle', 0, 8, 2)), 'skip', /2 of 15 requests got no verdict/],
  ] as const)('%s', (_name, observation, verdict, detail) => {
    const result = judgeConcurrentBurst(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('repeats an over-admitting burst that a boundary may explain, not an exact one', () => {
    expect(concurrentAttemptIsAmbiguous(attemptOf('idle', 0, 12), undefined, 10, 1000)).toBe(true);
    expect(concurrentAttemptIsAmbiguous(attemptOf('idle', 0, 10), undefined, 10, 1000)).toBe(false);
    // all admitted, no refusal to place a boundary with: decisive
    expect(concurrentAttemptIsAmbiguous(attemptOf('idle', 0, 15), undefined, 10, 1000)).toBe(false);
  });
});
