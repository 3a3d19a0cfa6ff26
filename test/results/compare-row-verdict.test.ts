import { describe, expect, it } from 'vitest';
import { parseFailOnRule, type MetricRule } from '../../src/results/compare/fail-on.ts';
import { judgeMetric, judgeStatus } from '../../src/results/compare/row-verdict.ts';

const rules = (...texts: string[]) => texts.map((t) => parseFailOnRule(t) as MetricRule);

describe('metric verdicts', () => {
  it.each([
    // missing in one run
    [null, 10, 'lower', 1, [], 'n/a', []],
    // unchanged
    [10, 10, 'lower', 1, ['p99:+10%'], 'ok', []],
    // +50 % but the runs' own noise is larger: not a regression
    [10, 15, 'lower', 6, ['p99:+10%'], 'within noise', []],
    // +50 %, beyond noise, rule allows 10 %
    [10, 15, 'lower', 1, ['p99:+10%'], 'regression', ['p99:+10%']],
    // +5 %, beyond noise, within the rule's 10 %
    [10, 10.5, 'lower', 0.1, ['p99:+10%'], 'worse', []],
    // worse beyond noise with no rule gating it
    [10, 15, 'lower', 1, [], 'worse', []],
    // faster beyond noise
    [10, 5, 'lower', 1, ['p99:+10%'], 'improvement', []],
    // higher is better: rps fell 10 %, the rule allows 5 %
    [100, 90, 'higher', 1, ['rps:-5%'], 'regression', ['rps:-5%']],
    // higher is better: rps rose
    [100, 110, 'higher', 1, ['rps:-5%'], 'improvement', []],
    // two rules, only the absolute one broken
    [100, 108, 'lower', 1, ['p99:+10%', 'p99:+5ms'], 'regression', ['p99:+5ms']],
    // exactly at the noise bound is still noise
    [10, 12, 'lower', 2, ['p99:+10%'], 'within noise', []],
  ] as const)('base %j head %j (%s is better, noise %d, rules %j) → %s', (base, head, better, noise, ruleTexts, verdict, failed) => {
    expect(judgeMetric({ base, head, better, noise, rules: rules(...ruleTexts) })).toEqual({ verdict, failedRules: failed });
  });
});

describe('check and threshold verdicts', () => {
  it.each([
    // a new failure, gated by the rule
    ['pass', 'fail', 'checks:any-new-fail', 'regression'],
    // a new failure of a check the base skipped or did not have
    ['skip', 'fail', 'checks:any-new-fail', 'regression'],
    [null, 'fail', 'checks:any-new-fail', 'regression'],
    // a new failure without the rule: informational
    ['pass', 'fail', null, 'worse'],
    // fixed
    ['fail', 'pass', 'checks:any-new-fail', 'improvement'],
    // still failing: not new
    ['fail', 'fail', 'checks:any-new-fail', 'ok'],
    ['pass', 'pass', null, 'ok'],
    // no longer run, or only in the base
    ['pass', 'skip', null, 'n/a'],
    ['pass', null, null, 'n/a'],
  ] as const)('%s → %s with rule %s is %s', (base, head, rule, verdict) => {
    expect(judgeStatus(base, head, rule).verdict).toBe(verdict);
  });
});
