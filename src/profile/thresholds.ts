/**
 * Thresholds: `[<method>:]<metric> <op> <value>[unit]`, evaluated against a finished RunResult.
 * - latency `p<N>` (any percentile: p50, p95, p99.9, p75 …; p999 is p99.9), `max`, `mean` (ms;
 *   unit ms or s, default ms), `service.<stat>` (service time), `lag.<stat>` (schedule lag, overall
 *   only). Percentiles the stats blocks lack are read from the result's histograms.
 * - `error_rate` (errors / requests, errors being outcomes that are neither success nor
 *   rate-limited) and `rate_limited` (share of 429s): a 0–1 fraction or a percentage with %
 * - `rps`, `requests`
 * - ops `<  <=  >  >=  ==`
 * `actual` is reported in the unit the expression was written in, so it reads against the limit.
 */
import { outcomeClass, type OutcomeClass } from '../api/outcome.ts';
import { RpcloadError } from '../errors.ts';
import { percentileKey, percentileOf, resultPercentileMs } from '../metrics/result-percentiles.ts';
import type { Percentiles, RunResult, Stats, ThresholdResult } from '../contract/result-schema.ts';

/** A latency figure: `max`, `mean` or a percentile `p<N>` (p99.9 is written `p999`, as in the result file). */
type LatencyStat = 'max' | 'mean' | `p${number}`;
type Operator = '<' | '<=' | '>' | '>=' | '==';

/** What a threshold measures. */
export type ThresholdMetric =
  | { readonly kind: 'latency'; readonly source: 'latencyMs' | 'serviceTimeMs' | 'scheduleLagMs'; readonly stat: LatencyStat }
  | { readonly kind: 'share'; readonly of: Exclude<OutcomeClass, 'success'> }
  | { readonly kind: 'rps' }
  | { readonly kind: 'requests' };

/** A parsed threshold: plain data, evaluated against a finished result by evaluateThreshold. */
export interface ParsedThreshold {
  /** The expression as written, e.g. "items.list:p99 < 300ms". */
  readonly expr: string;
  /** The method it is scoped to; null = overall. */
  readonly method: string | null;
  readonly metric: ThresholdMetric;
  readonly op: Operator;
  /** The limit in the written unit. */
  readonly limit: number;
  /** The written unit ('' when none). */
  readonly unit: string;
}

const SYNTAX = /^\s*(?:([^\s:<>=]+):)?([A-Za-z_][\w.]*)\s*(<=|>=|==|<|>)\s*(\d+(?:\.\d+)?)\s*([a-z%]*)\s*$/i;
const LATENCY = /^(service\.|lag\.)?(p[\d.]+|max|mean)$/;
const LATENCY_SOURCES = { '': 'latencyMs', 'service.': 'serviceTimeMs', 'lag.': 'scheduleLagMs' } as const;
const METRICS = 'p50, p95, p99.9 or any p<N>, max, mean, service.<stat>, lag.<stat>, error_rate, rate_limited, rps, requests';

function fail(what: string, found: string): never {
  throw new RpcloadError('bad_threshold', `expected ${what}, found ${found}`);
}

function parseMetric(name: string, method: string | null, expr: string): ThresholdMetric {
  const latency = LATENCY.exec(name);
  if (latency) {
    const source = LATENCY_SOURCES[(latency[1] ?? '') as keyof typeof LATENCY_SOURCES];
    if (source === 'scheduleLagMs' && method !== null)
      fail('lag.<stat> without a method (schedule lag is recorded overall only)', JSON.stringify(expr));
    const stat = latency[2]!;
    if (stat === 'max' || stat === 'mean') return { kind: 'latency', source, stat };
    const q = percentileOf(stat);
    if (q === null) fail('a percentile from p0.1 to p100, like p95 or p99.9', JSON.stringify(stat));
    // p99.9 keeps the result file's name, p999.
    return { kind: 'latency', source, stat: q === 99.9 ? 'p999' : `p${q}` };
  }
  if (name === 'error_rate') return { kind: 'share', of: 'error' };
  if (name === 'rate_limited') return { kind: 'share', of: 'rate_limited' };
  if (name === 'rps') return { kind: 'rps' };
  if (name === 'requests') return { kind: 'requests' };
  return fail(`a metric (${METRICS})`, JSON.stringify(name));
}

/** Scale from the result's unit (ms, fraction, count) to the written unit; undefined = unit not allowed. */
function unitScale(metric: ThresholdMetric, unit: string): number | undefined {
  if (metric.kind === 'latency') return ({ '': 1, ms: 1, s: 0.001 } as Partial<Record<string, number>>)[unit];
  if (metric.kind === 'share') return ({ '': 1, '%': 100 } as Partial<Record<string, number>>)[unit];
  return unit === '' ? 1 : undefined;
}

/** Parse a threshold expression; bad syntax throws an RpcloadError "expected …, found …". */
export function parseThreshold(expr: string): ParsedThreshold {
  const match = SYNTAX.exec(expr);
  if (!match) fail('a threshold like "p99 < 250ms", "items.list:error_rate < 1%" or "rps >= 50"', JSON.stringify(expr));
  const [, methodText, metricName, op, valueText, unitText] = match as unknown as [
    string,
    string | undefined,
    string,
    Operator,
    string,
    string,
  ];
  const method = methodText ?? null;
  const metric = parseMetric(metricName, method, expr);
  const unit = unitText.toLowerCase();
  const scale = unitScale(metric, unit);
  if (scale === undefined) {
    const units = metric.kind === 'latency' ? 'ms or s' : metric.kind === 'share' ? '% or no unit (a 0–1 fraction)' : 'no unit';
    fail(`${units} after the value of ${metricName}`, JSON.stringify(unitText));
  }
  const limit = Number(valueText);
  if (metric.kind === 'share' && unit === '' && limit > 1) fail(`a fraction from 0 to 1 or a percentage like ${limit}%`, valueText);
  return { expr, method, metric, op, limit, unit };
}

/** The threshold's verdict on a result; `actual` in the unit the expression was written in. */
export function evaluateThreshold(threshold: ParsedThreshold, result: RunResult): ThresholdResult {
  const { expr, metric, method, op, limit } = threshold;
  const native = measure(metric, result, method);
  const actual = native === null ? null : Math.round(native * unitScale(metric, threshold.unit)! * 1e6) / 1e6;
  return { expr, actual, ok: actual !== null && compare(actual, op, limit) };
}

function compare(actual: number, op: Operator, limit: number): boolean {
  switch (op) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    case '>=':
      return actual >= limit;
    case '==':
      return actual === limit;
  }
}

/**
 * The metric in its native unit, or null when there is nothing to measure: a method that was
 * never called, no requests for a latency or share, no schedule lag (closed model).
 */
function measure(metric: ThresholdMetric, result: RunResult, method: string | null): number | null {
  const stats: Stats | undefined = method === null ? result.summary : result.byMethod[method];
  if (!stats) return null;
  if (metric.kind === 'requests' || metric.kind === 'rps') return stats[metric.kind];
  if (stats.requests === 0) return null;
  if (metric.kind === 'share') {
    let count = 0;
    for (const [outcome, n] of Object.entries(stats.outcomes)) if (outcomeClass(outcome) === metric.of) count += n;
    return count / stats.requests;
  }
  const percentiles: Percentiles | null = metric.source === 'scheduleLagMs' ? result.summary.scheduleLagMs : stats[metric.source];
  if (percentiles === null) return null;
  if (metric.stat === 'max' || metric.stat === 'mean') return percentiles[metric.stat];
  const q = percentileOf(metric.stat)!;
  const key = percentileKey(q);
  if (key !== null) return percentiles[key];
  const source = ({ latencyMs: 'latency', serviceTimeMs: 'serviceTime', scheduleLagMs: 'scheduleLag' } as const)[metric.source];
  return resultPercentileMs(result, { source, method }, q);
}

/**
 * The latency bound of the run's SLO, for goodput: the tightest overall latency threshold ("p99 <
 * 250ms", "max <= 1s"; not a method's, a service time's or a schedule lag's), in ms; null when
 * there is none.
 */
export function goodputLatencyBoundMs(thresholds: readonly ParsedThreshold[]): number | null {
  let bound: number | null = null;
  for (const t of thresholds) {
    if (t.method !== null || t.metric.kind !== 'latency' || t.metric.source !== 'latencyMs' || (t.op !== '<' && t.op !== '<=')) continue;
    const ms = t.limit / unitScale(t.metric, t.unit)!;
    if (bound === null || ms < bound) bound = ms;
  }
  return bound;
}
