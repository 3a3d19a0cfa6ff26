import { describe, expect, it } from 'vitest';
import {
  attemptIsAmbiguous,
  judgeAllMethods,
  type MethodsAttempt,
} from '../../../src/verify/verdicts/ratelimit-all-methods.ts';
import { admitted, ex } from '../../support/round-trips.ts';

/** 5 × ping, 5 × echo, then `after` (admitted count before the refusal beyond the 10). */
function attemptOf(
  kind: MethodsAttempt['kind'],
  fromMs: number,
  admittedCount: number,
  retryAfterS = 1,
): MethodsAttempt {
  const roundTrips = Array.from({ length: admittedCount }, (_, i) =>
    ex(fromMs + i, 'admitted', { method: i >= 5 && i < 10 ? 'echo' : 'ping' }),
  );
  return {
    kind,
    roundTrips: [
      ...roundTrips,
      ex(fromMs + admittedCount, 'refused', {
        retryAfterS,
        method: admittedCount >= 5 && admittedCount < 10 ? 'echo' : 'ping',
      }),
    ],
  };
}
const observe = (...attempts: MethodsAttempt[]) => ({
  limit: 10,
  windowMs: 1000,
  methods: ['ping', 'echo'] as const,
  attempts,
});

describe('judgeAllMethods', () => {
  it.each([
    // one quota: 5 + 5 admitted, the 11th refused
    ['one quota', observe(attemptOf('idle', 0, 10)), 'pass', /5 × ping and 5 × echo admitted, the next ping refused/],
    // a quota per method: 15 admitted before the first refusal, in both attempts
    [
      'quota per method',
      observe(attemptOf('idle', 0, 15), attemptOf('reset', 1016, 15)),
      'fail',
      /the next request was admitted \(15 admitted before the first refusal\)/,
    ],
    // limit − 1: the 10th (an echo) refused
    [
      'limit − 1',
      observe(attemptOf('idle', 0, 9)),
      'fail',
      /request 10 \(echo, after 5 × ping and 4 × echo\) was refused/,
    ],
    // a straddled first attempt, then exact
    [
      'boundary in the first attempt',
      observe(attemptOf('idle', 995, 14), attemptOf('reset', 2011, 10)),
      'pass',
      /one quota across methods/,
    ],
  ] as const)('%s', (_name, observation, verdict, detail) => {
    const result = judgeAllMethods(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('marks count failures for reconciliation with a refilling quota', () => {
    expect(
      judgeAllMethods(observe(attemptOf('idle', 0, 12), attemptOf('reset', 1016, 12))).findings?.failedOnCount,
    ).toBe(true);
    expect(judgeAllMethods(observe(attemptOf('idle', 0, 9))).findings?.failedOnCount).toBe(true);
  });

  it.each([
    // over the limit from idle, Retry-After cannot rule a boundary out: repeat
    ['over, idle', attemptOf('idle', 0, 11), undefined, true],
    // exact: never repeated
    ['exact', attemptOf('idle', 0, 10), undefined, false],
    // over at 1 s windows after a reset: repeat again
    ['over after reset', attemptOf('reset', 1012, 11), attemptOf('idle', 0, 11), true],
  ] as const)('attemptIsAmbiguous: %s', (_name, attempt, previous, expected) => {
    expect(attemptIsAmbiguous(attempt, previous, 10, 1000)).toBe(expected);
  });

  it('does not count requests without a limiter verdict', () => {
    const result = judgeAllMethods(observe({ kind: 'idle', roundTrips: [...admitted(3, 0), ex(3, 'failed')] }));
    expect(result.verdict).toBe('skip');
  });
});
