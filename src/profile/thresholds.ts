/**
 * Thresholds: `<metric>[{key:value,…}] <op> <value>[unit]`, evaluated against a finished RunResult
 * (or, for one that stops the run when it fails, against the live figures of its selection).
 * - latency `p<N>` (any percentile: p50, p95, p99.9, p75 …; p999 is p99.9), `max`, `mean` (ms;
 *   unit ms or s, default ms), `service.<stat>` (service time), `lag.<stat>` (schedule lag).
 *   Percentiles the stats blocks lack are read from the result's histograms.
 * - `error_rate` (errors / requests, errors being outcomes that are neither success nor
 *   rate-limited) and `rate_limited` (share of 429s): a 0–1 fraction or a percentage with %
 * - `rps`, `requests`
 * - ops `<  <=  >  >=  ==`
 * The selector `{workload:browse,kind:write}` scopes the metric to the requests that match every
 * term (keys: workload, scenario, phase, method, client or a step tag); `ping:p99 < 500ms` is the
 * older spelling of `p99{method:ping} < 500ms`. `actual` is reported in the unit the expression was
 * written in, so it reads against the limit. Judging a finished result file is threshold-results.ts.
 */
import { outcomeClass, type OutcomeClass } from '../api/outcome.ts';
import { RpcloadError } from '../errors.ts';
import { percentileOf } from '../metrics/percentile-names.ts';
import type { ThresholdResult } from '../contract/result-schema.ts';

/** A latency figure: `max`, `mean` or a percentile `p<N>` (p99.9 is written `p999`, as in the result file). */
export type LatencyStat = 'max' | 'mean' | `p${number}`;
type Operator = '<' | '<=' | '>' | '>=' | '==';

/** What a threshold measures. */
export type ThresholdMetric =
  | { readonly kind: 'latency'; readonly source: LatencySource; readonly stat: LatencyStat }
  | { readonly kind: 'share'; readonly of: Exclude<OutcomeClass, 'success'> }
  | { readonly kind: 'rps' }
  | { readonly kind: 'requests' };

export type LatencySource = 'latencyMs' | 'serviceTimeMs' | 'scheduleLagMs';

/** The keys a selector may name besides a step tag's. */
export const SELECTOR_KEYS = ['workload', 'scenario', 'phase', 'method', 'client'] as const;

/** One term of a selector: the requests whose `key` is `value`. */
export interface SelectorTerm {
  readonly key: string;
  readonly value: string;
}

/** A parsed threshold: plain data, evaluated against a finished result by evaluateThreshold. */
export interface ParsedThreshold {
  /** The expression as written, e.g. "p99{workload:browse} < 2s". */
  readonly expr: string;
  /** The requests it judges: every term must hold; empty = the whole run. Sorted by key, then value. */
  readonly selector: readonly SelectorTerm[];
  /** The selector as canonical text, e.g. "method:ping,workload:browse" ('' = the whole run): where its figures are kept. */
  readonly selectorKey: string;
  readonly metric: ThresholdMetric;
  readonly op: Operator;
  /** The limit in the written unit. */
  readonly limit: number;
  /** The written unit ('' when none). */
  readonly unit: string;
  /** Judged live once a second too, and the run stops the moment it fails. */
  readonly abortOnFail: boolean;
  /** With abortOnFail: not judged live before this long into the run (ms). */
  readonly delayAbortEvalMs: number;
}

const SYNTAX =
  /^\s*(?:([^\s:<>={}]+):)?([A-Za-z_][\w.]*)\s*(?:\{([^}]*)\})?\s*(<=|>=|==|<|>)\s*(\d+(?:\.\d+)?)\s*([a-z%]*)\s*$/i;
const LATENCY = /^(service\.|lag\.)?(p[\d.]+|max|mean)$/;
const LATENCY_SOURCES = { '': 'latencyMs', 'service.': 'serviceTimeMs', 'lag.': 'scheduleLagMs' } as const;
const METRICS =
  'p50, p95, p99.9 or any p<N>, max, mean, service.<stat>, lag.<stat>, error_rate, rate_limited, rps, requests';
const TERM = /^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*:\s*([^\s,:{}][^,{}]*?)\s*$/;

function fail(what: string, found: string): never {
  throw new RpcloadError('bad_threshold', `expected ${what}, found ${found}`);
}

function parseMetric(name: string): ThresholdMetric {
  const latency = LATENCY.exec(name);
  if (latency) {
    const source = LATENCY_SOURCES[(latency[1] ?? '') as keyof typeof LATENCY_SOURCES];
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

/** `{workload:browse, kind:write}` → its terms, sorted; a key named twice or a term without a value is an error. */
function parseSelector(text: string | undefined, method: string | undefined): SelectorTerm[] {
  const terms: SelectorTerm[] = [];
  if (method !== undefined) terms.push({ key: 'method', value: method });
  if (text !== undefined)
    for (const part of text.split(',')) {
      const term = TERM.exec(part);
      if (!term) fail('selector terms like {workload:browse} or {method:ping,kind:write}', JSON.stringify(`{${text}}`));
      terms.push({ key: term[1]!, value: term[2]! });
    }
  const keys = terms.map((t) => t.key);
  const twice = keys.find((key, i) => keys.indexOf(key) !== i);
  if (twice !== undefined) fail(`each selector key at most once`, `"${twice}" twice`);
  return terms.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The canonical text of a selector: `key:value` terms, sorted, joined by commas ('' for none). */
export function selectorKeyOf(selector: readonly SelectorTerm[]): string {
  return selector.map((t) => `${t.key}:${t.value}`).join(',');
}

/** Scale from the result's unit (ms, fraction, count) to the written unit; undefined = unit not allowed. */
function unitScale(metric: ThresholdMetric, unit: string): number | undefined {
  if (metric.kind === 'latency') return ({ '': 1, ms: 1, s: 0.001 } as Partial<Record<string, number>>)[unit];
  if (metric.kind === 'share') return ({ '': 1, '%': 100 } as Partial<Record<string, number>>)[unit];
  return unit === '' ? 1 : undefined;
}

/** How a threshold object (`abortOnFail`) asks to be judged live; the default: only on the result. */
export interface LiveJudgement {
  readonly abortOnFail: boolean;
  readonly delayAbortEvalMs: number;
}

const NOT_LIVE: LiveJudgement = { abortOnFail: false, delayAbortEvalMs: 0 };

/** Parse a threshold expression; bad syntax throws an RpcloadError "expected …, found …". */
export function parseThreshold(expr: string, live: LiveJudgement = NOT_LIVE): ParsedThreshold {
  const match = SYNTAX.exec(expr);
  if (!match)
    fail(
      'a threshold like "p99 < 250ms", "error_rate{method:items.list} < 1%", "p95{workload:browse} < 2s" or "rps >= 50"',
      JSON.stringify(expr),
    );
  const [, methodText, metricName, selectorText, op, valueText, unitText] = match as unknown as [
    string,
    string | undefined,
    string,
    string | undefined,
    Operator,
    string,
    string,
  ];
  const metric = parseMetric(metricName);
  const selector = parseSelector(selectorText, methodText);
  const unit = unitText.toLowerCase();
  const scale = unitScale(metric, unit);
  if (scale === undefined) {
    const units =
      metric.kind === 'latency' ? 'ms or s' : metric.kind === 'share' ? '% or no unit (a 0–1 fraction)' : 'no unit';
    fail(`${units} after the value of ${metricName}`, JSON.stringify(unitText));
  }
  const limit = Number(valueText);
  if (metric.kind === 'share' && unit === '' && limit > 1)
    fail(`a fraction from 0 to 1 or a percentage like ${limit}%`, valueText);
  return { expr, selector, selectorKey: selectorKeyOf(selector), metric, op, limit, unit, ...live };
}

/**
 * The figures a threshold reads, of the requests its selector picks: from a finished result
 * (resultFigures) or, for one judged while the run goes, from the recorder's live slice.
 */
export interface ThresholdFigures {
  readonly requests: number;
  readonly rps: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** A latency figure (ms); null when there is none (no requests, no schedule lag in a closed model). */
  latencyMs(source: LatencySource, stat: LatencyStat): number | null;
}

/** The threshold's verdict on figures (null: its selection has none); `actual` in the written unit. */
export function judgeThreshold(threshold: ParsedThreshold, figures: ThresholdFigures | null): ThresholdResult {
  const { expr, metric, op, limit } = threshold;
  const native = figures === null ? null : measure(metric, figures);
  const actual = native === null ? null : Math.round(native * unitScale(metric, threshold.unit)! * 1e6) / 1e6;
  return {
    expr,
    actual,
    ok: actual !== null && compare(actual, op, limit),
    ...(threshold.abortOnFail ? { abortOnFail: true } : {}),
  };
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
 * The metric in its native unit, or null when there is nothing to measure: no requests for a
 * latency or share, no schedule lag (closed model).
 */
function measure(metric: ThresholdMetric, figures: ThresholdFigures): number | null {
  if (metric.kind === 'requests' || metric.kind === 'rps') return figures[metric.kind];
  if (figures.requests === 0) return null;
  if (metric.kind === 'share') {
    let count = 0;
    for (const [outcome, n] of Object.entries(figures.outcomes)) if (outcomeClass(outcome) === metric.of) count += n;
    return count / figures.requests;
  }
  return figures.latencyMs(metric.source, metric.stat);
}

/**
 * The latency bound of the run's SLO, for goodput: the tightest overall latency threshold ("p99 <
 * 250ms", "max <= 1s"; not a method's, a service time's or a schedule lag's), in ms; null when
 * there is none.
 */
export function goodputLatencyBoundMs(thresholds: readonly ParsedThreshold[]): number | null {
  let bound: number | null = null;
  for (const t of thresholds) {
    if (
      t.selector.length > 0 ||
      t.metric.kind !== 'latency' ||
      t.metric.source !== 'latencyMs' ||
      (t.op !== '<' && t.op !== '<=')
    )
      continue;
    const ms = t.limit / unitScale(t.metric, t.unit)!;
    if (bound === null || ms < bound) bound = ms;
  }
  return bound;
}
