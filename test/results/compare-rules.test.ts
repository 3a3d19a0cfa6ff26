import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { DEFAULT_FAIL_ON, exceedsLimit, parseFailOnRule, parseFailOnRules, rulesForMetric, type MetricRule } from '../../src/results/compare/fail-on.ts';

describe('--fail-on rules', () => {
  it.each([
    // relative latency limit, overall
    ['p99:+10%', { method: null, metric: 'p99', limit: { unit: '%', amount: 10, floor: null } }],
    // throughput regresses when it falls
    ['rps:-5%', { method: null, metric: 'rps', limit: { unit: '%', amount: 5, floor: null } }],
    // rates in percentage points
    ['errors:+0.5pp', { method: null, metric: 'errors', limit: { unit: 'pp', amount: 0.5, floor: null } }],
    ['rate_limited:+1pp', { method: null, metric: 'rate_limited', limit: { unit: 'pp', amount: 1, floor: null } }],
    // service time, absolute ms
    ['service.p99:+25ms', { method: null, metric: 'service.p99', limit: { unit: 'ms', amount: 25, floor: null } }],
    // method-scoped: the method name may itself contain dots
    ['items.list:p99:+10%', { method: 'items.list', metric: 'p99', limit: { unit: '%', amount: 10, floor: null } }],
    // every method
    ['*:p50:+20%', { method: '*', metric: 'p50', limit: { unit: '%', amount: 20, floor: null } }],
    // a method name with a colon: the metric and limit are the last two parts
    ['ns:get:max:+0%', { method: 'ns:get', metric: 'max', limit: { unit: '%', amount: 0, floor: null } }],
    // a relative limit with an absolute floor: both must be passed
    ['p50:+10%+1ms', { method: null, metric: 'p50', limit: { unit: '%', amount: 10, floor: { unit: 'ms', amount: 1 } } }],
    ['errors:+50%+0.2pp', { method: null, metric: 'errors', limit: { unit: '%', amount: 50, floor: { unit: 'pp', amount: 0.2 } } }],
  ])('parses %s', (text, expected) => {
    expect(parseFailOnRule(text)).toEqual({ kind: 'metric', text, ...expected });
  });

  it.each([
    // status rules
    ['checks:any-new-fail', 'checks'],
    ['thresholds:any-new-fail', 'thresholds'],
  ])('parses %s', (text, kind) => {
    expect(parseFailOnRule(text)).toEqual({ kind, text });
  });

  it.each([
    // unknown metric
    ['p101:+10%', /unknown metric "p101"/],
    // wrong direction: latency regresses when it rises
    ['p99:-10%', /p99 regresses when it rises: write \+10%/],
    // wrong direction: rps regresses when it falls
    ['rps:+5%', /rps regresses when it falls: write -5%/],
    // pp only for rates
    ['p99:+1pp', /pp .* only to errors and rate_limited/],
    // ms only for latency
    ['errors:+5ms', /ms applies only to latency/],
    // no amount
    ['p99', /expected METRIC/],
    // not a number
    ['p99:+ten%', /expected METRIC/],
    // a floor belongs to a relative limit
    ['p99:+5ms+1ms', /a floor \(\+1ms\) goes with a relative limit in %/],
    // the floor moves the way the limit does
    ['p99:+10%-1ms', /the floor moves the same way as the limit: write \+1ms/],
    // floor units follow the metric
    ['p99:+10%+1pp', /a pp floor applies only to errors and rate_limited/],
    ['errors:+10%+1ms', /an ms floor applies only to latency metrics/],
  ])('rejects %s', (text, message) => {
    const result = parseFailOnRule(text);
    expect(typeof result).toBe('string');
    expect(result).toMatch(message);
  });

  it('parses the default rules', () => {
    expect(parseFailOnRules(DEFAULT_FAIL_ON).map((r) => r.text)).toEqual(DEFAULT_FAIL_ON.split(','));
  });

  it('names every bad rule in one error', () => {
    const error = (() => {
      try {
        parseFailOnRules('p99:+10%, pct95:+1%, rps:+5%');
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(RpcloadError);
    expect((error as RpcloadError).exitCode).toBe(2);
    expect((error as RpcloadError).message).toMatch(/^--fail-on: rule "pct95:\+1%": .*; rule "rps:\+5%": /);
  });

  it('accepts "none" as no rules and refuses an empty list', () => {
    expect(parseFailOnRules('none')).toEqual([]);
    expect(() => parseFailOnRules(' , ')).toThrow(/no rules given/);
  });

  it('picks the rules that gate a row by scope', () => {
    const rules = parseFailOnRules('p99:+10%,*:p99:+30%,ping:p99:+5%,p50:+20%');
    const texts = (scope: string | null) => rulesForMetric(rules, scope, 'p99').map((r) => r.text);
    expect(texts(null)).toEqual(['p99:+10%']);
    expect(texts('ping')).toEqual(['*:p99:+30%', 'ping:p99:+5%']);
    expect(texts('work')).toEqual(['*:p99:+30%']);
  });

  const limit = (text: string) => (parseFailOnRule(text) as MetricRule).limit;
  it.each([
    // +10 % of 100 is 10: not more than the limit
    ['p99:+10%', 100, 10, false],
    ['p99:+10%', 100, 10.01, true],
    // from zero any rise is an infinite relative change
    ['p99:+10%', 0, 0.001, true],
    // a move in the good direction never breaks a limit
    ['p99:+10%', 100, -50, false],
    // 0.5pp = 0.005 as a fraction
    ['errors:+0.5pp', 0.01, 0.006, true],
    ['errors:+0.5pp', 0.01, 0.004, false],
    // absolute ms
    ['p50:+5ms', 20, 5.5, true],
    ['p50:+5ms', 20, 4.9, false],
    // rps: the bad delta of a fall is positive
    ['rps:-5%', 200, 11, true],
    // a sub-millisecond p50 that rose by 55 % but only 0.37 ms: below the floor (same-settings noise)
    ['p50:+10%+1ms', 0.674, 0.369, false],
    // past both the relative limit and the floor
    ['p50:+10%+1ms', 2, 1.5, true],
    // past the floor but not the relative limit
    ['p50:+10%+1ms', 200, 5, false],
    ['errors:+50%+0.2pp', 0.001, 0.0015, false],
    ['errors:+50%+0.2pp', 0.001, 0.003, true],
  ])('%s with base %d and a bad move of %d breaks the limit: %s', (rule, base, badDelta, expected) => {
    expect(exceedsLimit(limit(rule), base, badDelta)).toBe(expected);
  });
});
