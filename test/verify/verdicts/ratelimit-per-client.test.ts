import { describe, expect, it } from 'vitest';
import { judgePerClient, type PerClientAttempt } from '../../../src/verify/verdicts/ratelimit-per-client.ts';
import { ex } from '../../support/round-trips.ts';

const exhaustion = { admitted: 10, stop: 'refused' as const, last: ex(10, 'refused'), tooSlow: null };
const attempt = (
  t2: ('admitted' | 'refused')[],
  control: 'admitted' | 'refused',
  other: 'admitted' | 'refused',
): PerClientAttempt => ({
  exhaustion,
  secondToken: t2.map((a, i) => ex(11 + i, a)),
  control: ex(20, control),
  otherClient: ex(21, other),
});
const R = 'refused' as const;
const A = 'admitted' as const;

describe('judgePerClient', () => {
  it.each([
    // separate quotas per client, shared by a client's tokens
    [
      'conformant',
      [attempt([R, R, R, R, R], R, A)],
      'pass',
      /requests with a second token of a were refused and b was admitted/,
    ],
    // one quota for everyone
    [
      'quota global',
      [attempt([R, R, R, R, R], R, R)],
      'fail',
      /exhausting a also got b refused: one quota is shared across client IDs/,
    ],
    // quota per token
    [
      'quota per token',
      [attempt([A, A, A, A, A], R, A)],
      'fail',
      /all 5 requests with a second token of a were admitted .* counted per token/,
    ],
    // one token refilled (a bucket): shared, not per token
    ['gradual refill', [attempt([A, R, R, R, R], R, A)], 'pass', /were refused and b was admitted/],
    // a boundary passed in the first attempt; the second decides
    [
      'boundary, then conformant',
      [attempt([A, A, A, A, A], A, A), attempt([R, R, R, R, R], R, A)],
      'pass',
      /b was admitted/,
    ],
    // the quota came back in every attempt
    [
      'boundary every time',
      [attempt([A, A, A, A, A], A, A), attempt([A, A, A, A, A], A, A)],
      'skip',
      /quota came back during every attempt/,
    ],
    // never refused
    [
      'never refused',
      [
        {
          exhaustion: { admitted: 25, stop: 'cap' as const, last: ex(24, 'admitted'), tooSlow: null },
          secondToken: [],
          control: null,
          otherClient: null,
        },
      ],
      'skip',
      /a was never refused/,
    ],
  ] as const)('%s', (_name, attempts, verdict, detail) => {
    const result = judgePerClient({ clientA: 'a', clientB: 'b', attempts });
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('tells the scheduler when one quota is shared', () => {
    expect(judgePerClient({ clientA: 'a', clientB: 'b', attempts: [attempt([R], R, R)] }).findings?.quotaShared).toBe(
      true,
    );
    expect(judgePerClient({ clientA: 'a', clientB: 'b', attempts: [attempt([A], R, A)] }).findings?.quotaShared).toBe(
      false,
    );
  });
});
