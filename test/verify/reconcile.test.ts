import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../src/verify/check.ts';
import { reconcileOutcomes, refillAllowance } from '../../src/verify/reconcile.ts';
import { fail, pass } from '../../src/verify/verdict.ts';
import type { CheckId } from '../../src/verify/check-ids.ts';

const gradual: CheckOutcome = { ...fail('token-bucket-like', {}), findings: { quotaRefillsGradually: true } };
const countFailure: CheckOutcome = { ...fail('11 admitted', {}), findings: { failedOnCount: true } };

describe('reconcileOutcomes', () => {
  it.each([
    // a token bucket: the count failure measured its refill
    ['count failure under a refilling quota', gradual, countFailure, 'skip'],
    // a failure about something else stands
    ['other failure under a refilling quota', gradual, fail('wrong envelope', {}), 'fail'],
    // windows, not a bucket: the count failure stands
    ['count failure with windows', pass('exact', {}), countFailure, 'fail'],
  ] as const)('%s', (_name, threshold, allMethods, expected) => {
    const outcomes = new Map<CheckId, CheckOutcome>([
      ['ratelimit.threshold', threshold],
      ['ratelimit.all_methods', allMethods],
    ]);
    const changed = reconcileOutcomes(outcomes);
    expect(changed.get('ratelimit.all_methods')?.verdict ?? allMethods.verdict).toBe(expected);
    if (expected === 'skip')
      expect(changed.get('ratelimit.all_methods')?.detail).toBe(
        'not judged: the quota refills gradually (see ratelimit.threshold), which bends every per-window count (11 admitted)',
      );
  });
});

describe('count failures under a refilling quota, judged with the refill allowance', () => {
  const countedFailure = (admitted: number, spanMs: number, limit: number, windowMs: number): CheckOutcome => ({
    ...fail(`${admitted} admitted`, {}),
    findings: { failedOnCount: true, idleCount: { admitted, spanMs, limit, windowMs } },
  });
  it.each([
    // 150 in flight at once, done in 40 ms, one slot refilling every 100 ms: no refill fits, 101 is over
    ['101 of 150 in 40 ms at 100 per 10 s', countedFailure(101, 40, 100, 10_000), 'fail', 0],
    [
      '100 + 1 over 150 ms at 100 per 10 s: one refill explains the one',
      countedFailure(101, 150, 100, 10_000),
      'pass',
      1,
    ],
    ['11 over 300 ms at 10 per 2 s', countedFailure(11, 300, 10, 2000), 'pass', 1],
    ['15 over 300 ms at 10 per 2 s: separate quotas per method', countedFailure(15, 300, 10, 2000), 'fail', 1],
    ['7 before the first refusal: a refill only adds', countedFailure(7, 300, 10, 2000), 'fail', 1],
  ] as const)('%s → %s', (_, outcome, expected, allowance) => {
    expect(refillAllowance(outcome.findings!.idleCount!)).toBe(allowance);
    const outcomes = new Map<CheckId, CheckOutcome>([
      ['ratelimit.threshold', gradual],
      ['ratelimit.concurrent_burst', outcome],
    ]);
    const judged = reconcileOutcomes(outcomes).get('ratelimit.concurrent_burst')!;
    expect(judged.verdict).toBe(expected);
    expect(judged.evidence).toMatchObject({ refill: { allowance } });
    expect(judged.notes?.join(' ')).toMatch(/judged with the refill allowance/);
  });
});
