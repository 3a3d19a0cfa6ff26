import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/contract/result-schema.ts';
import { RpcloadError } from '../../src/errors.ts';
import { judgeVerifyOutcome, parseAllowSkipFlag } from '../../src/verify/skip-policy.ts';

const pass: CheckResult = { id: 'envelope', verdict: 'pass', detail: 'ok', evidence: {} };
const failed: CheckResult = { id: 'ratelimit.threshold', verdict: 'fail', detail: 'over', evidence: {} };
const broken: CheckResult = {
  id: 'auth.missing_token',
  verdict: 'skip',
  skipClass: 'target_broken',
  detail: 'no response',
  evidence: {},
};
const notApplicable: CheckResult = {
  id: 'tls',
  verdict: 'skip',
  skipClass: 'not_applicable',
  detail: 'plain http',
  evidence: {},
};
const inconclusive: CheckResult = {
  id: 'ratelimit.per_client',
  verdict: 'skip',
  skipClass: 'inconclusive',
  detail: 'boundary',
  evidence: {},
};

describe('judgeVerifyOutcome', () => {
  it.each([
    ['a pass with expected skips', [pass, notApplicable, inconclusive], [], true, []],
    ['a failure', [pass, failed], [], false, []],
    ['a check skipped because the target broke', [pass, broken], [], false, ['auth.missing_token']],
    ['…allowed by class', [pass, broken], ['target_broken'], true, []],
    ['…allowed by check id', [pass, broken], ['auth.missing_token'], true, []],
    ['…allowed by --allow-skip alone', [pass, broken], 'all', true, []],
    ['nothing passed, only not-applicable skips', [notApplicable], [], false, ['tls']],
    ['nothing passed, every skip allowed', [notApplicable], ['not_applicable'], true, []],
    [
      'nothing passed, one skip not allowed',
      [notApplicable, inconclusive],
      ['not_applicable'],
      false,
      ['ratelimit.per_client'],
    ],
    [
      'an internal error',
      [pass, { ...broken, skipClass: 'internal_error' as const }],
      [],
      false,
      ['auth.missing_token'],
    ],
    [
      'a file without skip classes (read as inconclusive)',
      [pass, { id: 'tls', verdict: 'skip', detail: 'x', evidence: {} }],
      [],
      true,
      [],
    ],
  ] as const)('%s', (_name, checks, allowed, ok, blocking) => {
    const outcome = judgeVerifyOutcome(checks, allowed);
    expect(outcome.ok).toBe(ok);
    expect(outcome.blockingSkips).toEqual(blocking);
    expect(outcome.reason === null).toBe(ok);
    if (!ok) expect(outcome.reason).not.toContain('\n');
  });

  it('names the checks and the way out', () => {
    expect(judgeVerifyOutcome([broken, notApplicable], []).reason).toBe(
      'not a pass: 1 check(s) could not run because the target broke (auth.missing_token); --allow-skip accepts expected skips',
    );
    expect(judgeVerifyOutcome([pass, failed], []).reason).toBe('not a pass: 1 check(s) failed (ratelimit.threshold)');
  });
});

describe('parseAllowSkipFlag', () => {
  it('reads nothing, all, classes and check ids', () => {
    expect(parseAllowSkipFlag(undefined)).toEqual([]);
    expect(parseAllowSkipFlag(true)).toBe('all');
    expect(parseAllowSkipFlag('all')).toBe('all');
    expect(parseAllowSkipFlag('target_broken, tls')).toEqual(['target_broken', 'tls']);
  });

  it('refuses what is neither, in one line', () => {
    expect(() => parseAllowSkipFlag('target-broken')).toThrow(RpcloadError);
    expect(() => parseAllowSkipFlag(',')).toThrow(/--allow-skip: unknown skip class or check id \(none given\)/);
  });
});
