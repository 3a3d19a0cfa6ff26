import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../src/verify/check.ts';
import { reconcileOutcomes } from '../../src/verify/reconcile.ts';
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
