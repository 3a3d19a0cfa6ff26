import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { evaluateThreshold } from '../../src/profile/threshold-results.ts';
import { parseThreshold } from '../../src/profile/thresholds.ts';
import type { Percentiles, RunResult, Stats } from '../../src/contract/result-schema.ts';

const percentiles = (p: Partial<Percentiles>): Percentiles => ({
  min: 0,
  mean: 0,
  p50: 0,
  p90: 0,
  p99: 0,
  p999: 0,
  max: 0,
  ...p,
});
const stats = (s: Partial<Stats> & Pick<Stats, 'requests' | 'outcomes'>): Stats => ({
  rps: 0,
  latencyMs: percentiles({}),
  serviceTimeMs: percentiles({}),
  ...s,
});

/**
 * A run of 1000 requests: 950 success, 30 rate-limited (20 with the envelope code, 10 bare 429s),
 * 20 errors (12 envelope errors, 5 transport failures, 3 envelope violations).
 */
function result(scheduleLagMs: Percentiles | null = percentiles({ p50: 0.2, p99: 2.5, max: 9 })): RunResult {
  const summary = stats({
    requests: 1000,
    rps: 50,
    latencyMs: percentiles({ p50: 12, p90: 80, p99: 200, p999: 420, max: 900, mean: 25.5 }),
    serviceTimeMs: percentiles({ p50: 10, p99: 150 }),
    outcomes: {
      success: 950,
      'error:rate_limit_exceeded': 20,
      'http:429': 10,
      'error:unexpected_error': 12,
      'transport:UND_ERR_SOCKET': 5,
      envelope_violation: 3,
    },
  });
  return {
    schema: 'rpcload/result@1',
    tool: { name: 'rpcload', version: '0.0.0' },
    run: {
      id: 'r',
      kind: 'run',
      profile: 'p',
      startedAt: '2025-01-01T00:00:00Z',
      endedAt: '2025-01-01T00:00:20Z',
      status: 'completed',
      target: 'http://127.0.0.1:1',
      embeddedTarget: true,
      model: 'open',
      workers: 1,
      shards: 1,
      node: 'v20',
      host: 'h',
    },
    config: {},
    summary: {
      ...summary,
      durationS: 20,
      scheduleLagMs,
      tokens: { requests: 0, failures: 0, latencyMs: percentiles({}), outcomes: {} },
      skipped: {},
    },
    byMethod: {
      'items.list': stats({
        requests: 200,
        rps: 10,
        latencyMs: percentiles({ p99: 280 }),
        outcomes: { success: 190, 'error:not_found': 10 },
      }),
      idle: stats({ requests: 0, outcomes: {} }),
    },
    byClient: {},
    byPhase: {},
    byOutcome: {},
    timeline: [],
    histograms: { latency: '', serviceTime: '', byMethod: {}, byPhase: {}, byOutcome: {}, byClient: {} },
    rateLimit: null,
    checks: [],
    thresholds: [],
    warnings: [],
  };
}

describe('parseThreshold', () => {
  it.each([
    // overall latency, default unit ms
    [
      'p99 < 250',
      { selector: [], metric: { kind: 'latency', source: 'latencyMs', stat: 'p99' }, op: '<', limit: 250, unit: '' },
    ],
    // method-scoped with a unit
    [
      'items.list:p99 < 300ms',
      {
        selector: [{ key: 'method', value: 'items.list' }],
        metric: { kind: 'latency', source: 'latencyMs', stat: 'p99' },
        op: '<',
        limit: 300,
        unit: 'ms',
      },
    ],
    // service time, seconds, no spaces
    [
      'service.p999<=1.5s',
      {
        selector: [],
        metric: { kind: 'latency', source: 'serviceTimeMs', stat: 'p999' },
        op: '<=',
        limit: 1.5,
        unit: 's',
      },
    ],
    // schedule lag
    [
      'lag.max < 5ms',
      {
        selector: [],
        metric: { kind: 'latency', source: 'scheduleLagMs', stat: 'max' },
        op: '<',
        limit: 5,
        unit: 'ms',
      },
    ],
    // mean latency
    [
      'mean >= 1',
      { selector: [], metric: { kind: 'latency', source: 'latencyMs', stat: 'mean' }, op: '>=', limit: 1, unit: '' },
    ],
    // error rate as a percentage
    ['error_rate < 1%', { selector: [], metric: { kind: 'share', of: 'error' }, op: '<', limit: 1, unit: '%' }],
    // 429 share as a fraction
    [
      'work:rate_limited <= 0.05',
      {
        selector: [{ key: 'method', value: 'work' }],
        metric: { kind: 'share', of: 'rate_limited' },
        op: '<=',
        limit: 0.05,
        unit: '',
      },
    ],
    // throughput and count
    ['rps >= 50', { selector: [], metric: { kind: 'rps' }, op: '>=', limit: 50, unit: '' }],
    ['  requests == 1000  ', { selector: [], metric: { kind: 'requests' }, op: '==', limit: 1000, unit: '' }],
    // selectors: any keys, sorted; the method: prefix is one of them
    [
      'p99{workload:browse} < 2s',
      {
        selector: [{ key: 'workload', value: 'browse' }],
        selectorKey: 'workload:browse',
        op: '<',
        limit: 2,
        unit: 's',
      },
    ],
    [
      'p95{ workload: orders , kind:write } < 500ms',
      {
        selector: [
          { key: 'kind', value: 'write' },
          { key: 'workload', value: 'orders' },
        ],
        selectorKey: 'kind:write,workload:orders',
      },
    ],
    [
      'ping:error_rate{workload:a} < 1%',
      { selectorKey: 'method:ping,workload:a', metric: { kind: 'share', of: 'error' } },
    ],
    // schedule lag of a selection (its slice keeps it)
    [
      'work:lag.p99 < 5ms',
      { selectorKey: 'method:work', metric: { kind: 'latency', source: 'scheduleLagMs', stat: 'p99' } },
    ],
    // units are case-insensitive
    [
      'p50 > 2MS',
      { selector: [], metric: { kind: 'latency', source: 'latencyMs', stat: 'p50' }, op: '>', limit: 2, unit: 'ms' },
    ],
  ])('%j', (expr, parts) => {
    const threshold = parseThreshold(expr);
    expect(threshold).toMatchObject({ expr, ...parts });
  });

  it.each([
    // not the expression shape at all
    [
      'hello',
      'expected a threshold like "p99 < 250ms", "error_rate{method:items.list} < 1%", "p95{workload:browse} < 2s" or "rps >= 50", found "hello"',
    ],
    // missing value
    ['p99 <', 'found "p99 <"'],
    // unknown operator
    ['p99 != 3', 'found "p99 != 3"'],
    // negative value
    ['p99 < -3', 'found "p99 < -3"'],
    // unknown metric
    [
      'pct95 < 3ms',
      'expected a metric (p50, p95, p99.9 or any p<N>, max, mean, service.<stat>, lag.<stat>, error_rate, rate_limited, rps, requests), found "pct95"',
    ],
    // a percentile out of range
    ['p0 < 3ms', 'expected a percentile from p0.1 to p100, like p95 or p99.9, found "p0"'],
    // unknown latency prefix
    ['total.p99 < 3ms', 'found "total.p99"'],
    // a selector term without a value, a key named twice, a method named twice
    [
      'p99{workload} < 5ms',
      'expected selector terms like {workload:browse} or {method:ping,kind:write}, found "{workload}"',
    ],
    ['p99{workload:a,workload:b} < 5ms', 'expected each selector key at most once, found "workload" twice'],
    ['ping:p99{method:echo} < 5ms', 'expected each selector key at most once, found "method" twice'],
    // a unit latency does not take
    ['p99 < 5kb', 'expected ms or s after the value of p99, found "kb"'],
    // a percentage on a latency
    ['p99 < 5%', 'expected ms or s after the value of p99, found "%"'],
    // a unit on a count
    ['requests > 5ms', 'expected no unit after the value of requests, found "ms"'],
    // a bare number above 1 for a share is almost certainly a forgotten %
    ['error_rate < 5', 'expected a fraction from 0 to 1 or a percentage like 5%, found 5'],
  ])('%j is rejected', (expr, message) => {
    expect(() => parseThreshold(expr)).toThrow(RpcloadError);
    expect(() => parseThreshold(expr)).toThrow(message);
  });
});

describe('Threshold.evaluate', () => {
  it.each([
    // overall p99 200 ms
    ['p99 < 250ms', 200, true],
    // the same in seconds: actual is reported in the written unit
    ['p99 < 0.15s', 0.2, false],
    // method-scoped latency
    ['items.list:p99 < 300ms', 280, true],
    // boundaries: <= and >= include the limit, < and > do not
    ['service.p99 <= 150', 150, true],
    ['service.p99 < 150', 150, false],
    ['mean > 25.5', 25.5, false],
    ['mean >= 25.5', 25.5, true],
    // schedule lag
    ['lag.p99 < 5ms', 2.5, true],
    // errors: 12 envelope errors + 5 transport + 3 violations = 20 / 1000; 429s are not errors
    ['error_rate < 1%', 2, false],
    ['error_rate < 0.05', 0.02, true],
    // rate-limited: 20 with the envelope code + 10 bare 429s = 30 / 1000
    ['rate_limited < 5%', 3, true],
    ['rate_limited == 0.03', 0.03, true],
    // method-scoped error rate: 10 / 200
    ['items.list:error_rate <= 5%', 5, true],
    // throughput and count
    ['rps >= 50', 50, true],
    ['items.list:rps > 10', 10, false],
    ['requests > 1000', 1000, false],
    ['requests == 1000', 1000, true],
    // a method never called: nothing to measure, which fails
    ['ghost:p99 < 1000ms', null, false],
    ['ghost:requests == 0', null, false],
    // a method with zero requests: counts are 0, latencies and shares have no value
    ['idle:requests == 0', 0, true],
    ['idle:p99 < 1000ms', null, false],
    ['idle:error_rate < 1%', null, false],
  ])('%j → actual %j, ok %j', (expr, actual, ok) => {
    expect(evaluateThreshold(parseThreshold(expr), result())).toEqual({ expr, actual, ok });
  });

  it('has no schedule lag to measure in a closed-model run', () => {
    expect(evaluateThreshold(parseThreshold('lag.p99 < 5ms'), result(null))).toEqual({
      expr: 'lag.p99 < 5ms',
      actual: null,
      ok: false,
    });
  });
});

describe('thresholds with selectors', () => {
  const withSlices = (): RunResult => ({
    ...result(),
    bySelector: {
      'workload:browse': {
        ...stats({ requests: 400, rps: 20, outcomes: { success: 396, 'error:unexpected_error': 4 } }),
        latencyMs: percentiles({ p50: 9, p99: 1500, max: 2100 }),
        scheduleLagMs: percentiles({ p99: 7 }),
      },
      'method:items.list': {
        ...stats({ requests: 10, rps: 1, outcomes: { success: 10 } }),
        latencyMs: percentiles({ p99: 40 }),
      },
    },
  });

  it.each([
    // the selection's own figures, not the run's
    ['p99{workload:browse} < 2s', 1.5, true],
    ['error_rate{workload:browse} < 0.5%', 1, false],
    ['requests{workload:browse} == 400', 400, true],
    ['lag.p99{workload:browse} < 5ms', 7, false],
    // the method: spelling reads the selection's slice when the file has one
    ['items.list:p99 < 300ms', 40, true],
    // a selection the file has no slice for: nothing to measure, which fails
    ['p99{workload:orders} < 2s', null, false],
  ])('%j → actual %j, ok %j', (expr, actual, ok) => {
    expect(evaluateThreshold(parseThreshold(expr), withSlices())).toEqual({ expr, actual, ok });
  });

  it('keeps abortOnFail in its verdict', () => {
    const threshold = parseThreshold('p99{workload:browse} < 1s', { abortOnFail: true, delayAbortEvalMs: 2000 });
    expect(threshold).toMatchObject({ abortOnFail: true, delayAbortEvalMs: 2000 });
    expect(evaluateThreshold(threshold, withSlices())).toEqual({
      expr: threshold.expr,
      actual: 1.5,
      ok: false,
      abortOnFail: true,
    });
  });
});
