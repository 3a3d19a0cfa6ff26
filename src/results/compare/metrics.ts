/**
 * The metrics `compare` puts side by side for every scope (overall and each method), with the
 * direction that counts as worse and where their noise estimate comes from (see noise.ts).
 */
import { outcomeClass, type OutcomeClass } from '../../api/outcome.ts';
import type { Percentiles, Stats, Summary } from '../../contract/result-schema.ts';
import { percentileKey, percentileOf } from '../../metrics/percentile-names.ts';

/** The metrics every comparison shows, and any other latency percentile a --fail-on rule asks for (p95, service.p75 …). */
export type MetricName =
  | 'rps'
  | 'goodput'
  | 'p50'
  | 'p90'
  | 'p99'
  | 'p999'
  | 'max'
  | 'service.p50'
  | 'service.p99'
  | 'errors'
  | 'rate_limited'
  | `p${number}`
  | `service.p${number}`;

/** ms: latency; per_s: throughput; ratio: a fraction of requests (shown in %, deltas in pp). */
export type MetricUnit = 'ms' | 'per_s' | 'ratio';

/** Per-second timeline series a metric's noise is estimated from (its own or the nearest one). */
export type NoiseSeries = 'requests' | 'errors' | 'rateLimited' | 'p50' | 'p99';

export interface MetricSpec {
  readonly name: MetricName;
  readonly unit: MetricUnit;
  /** The direction that is an improvement; the other one is a regression. */
  readonly better: 'lower' | 'higher';
  /** The value in a stats block of the result file; null for a percentile the block lacks (read from the histogram). */
  readonly read: ((stats: Stats) => number | null) | null;
  /** Which histogram and quantile (0..1) the value is read from, for percentile metrics. */
  readonly quantile?: { readonly histogram: 'latency' | 'serviceTime'; readonly q: number };
  /** The timeline series whose per-second spread stands for this metric's run-to-run noise. */
  readonly series: NoiseSeries;
  /** The overall figure is the series' own (rps, p50, p99, error and 429 rates); others borrow its relative spread. */
  readonly ownSeries: boolean;
}

/** Fraction of requests in one outcome class (0 when there were no requests). */
export function outcomeShare(stats: Stats, cls: OutcomeClass): number {
  if (stats.requests === 0) return 0;
  let count = 0;
  for (const [outcome, n] of Object.entries(stats.outcomes)) if (outcomeClass(outcome) === cls) count += n;
  return count / stats.requests;
}

function percentile(name: MetricName, histogram: 'latency' | 'serviceTime', key: keyof Percentiles, q: number, series: NoiseSeries): MetricSpec {
  return {
    name,
    unit: 'ms',
    better: 'lower',
    read: (stats) => stats[histogram === 'latency' ? 'latencyMs' : 'serviceTimeMs'][key],
    quantile: { histogram, q },
    series,
    ownSeries: name === series,
  };
}

/** In display order. p90, p999 and max have no series of their own and borrow p99's spread. */
export const METRICS: readonly MetricSpec[] = [
  { name: 'rps', unit: 'per_s', better: 'higher', read: (stats) => stats.rps, series: 'requests', ownSeries: true },
  // Overall only (the summary's), and only where a file has it: successes within the SLO's latency bound, per second.
  { name: 'goodput', unit: 'per_s', better: 'higher', read: (stats) => (stats as Partial<Summary>).goodput?.perS ?? null, series: 'requests', ownSeries: false },
  percentile('p50', 'latency', 'p50', 0.5, 'p50'),
  percentile('p90', 'latency', 'p90', 0.9, 'p99'),
  percentile('p99', 'latency', 'p99', 0.99, 'p99'),
  percentile('p999', 'latency', 'p999', 0.999, 'p99'),
  percentile('max', 'latency', 'max', 1, 'p99'),
  percentile('service.p50', 'serviceTime', 'p50', 0.5, 'p50'),
  percentile('service.p99', 'serviceTime', 'p99', 0.99, 'p99'),
  { name: 'errors', unit: 'ratio', better: 'lower', read: (stats) => outcomeShare(stats, 'error'), series: 'errors', ownSeries: true },
  { name: 'rate_limited', unit: 'ratio', better: 'lower', read: (stats) => outcomeShare(stats, 'rate_limited'), series: 'rateLimited', ownSeries: true },
];

export const METRIC_NAMES: readonly MetricName[] = METRICS.map((m) => m.name);

/**
 * The spec of a metric name: one of METRICS, or any other latency percentile (`p95`,
 * `service.p75`, `p99.99`), read from the histograms with p50's or p99's noise series; undefined
 * for an unknown name.
 */
export function metricSpec(name: string): MetricSpec | undefined {
  const builtin = METRICS.find((m) => m.name === name);
  if (builtin) return builtin;
  const match = /^(service\.)?(p[\d.]+)$/.exec(name);
  const q = match ? percentileOf(match[2]!) : null;
  if (!match || q === null) return undefined;
  const histogram = match[1] === undefined ? 'latency' : 'serviceTime';
  // Written as the file writes it (p99.9 → p999): the same figure gets the same row.
  const canonical = `${match[1] ?? ''}${q === 99.9 ? 'p999' : `p${q}`}` as MetricName;
  if (canonical !== name) return metricSpec(canonical);
  const key = percentileKey(q);
  return {
    name: canonical,
    unit: 'ms',
    better: 'lower',
    read: key === null ? null : (stats) => stats[histogram === 'latency' ? 'latencyMs' : 'serviceTimeMs'][key],
    quantile: { histogram, q: q / 100 },
    series: q <= 75 ? 'p50' : 'p99',
    ownSeries: false,
  };
}

/** The built-in metrics, then those only rules name (p95 …), each once, in rule order. */
export function metricsFor(ruleMetrics: readonly MetricName[]): MetricSpec[] {
  const extra = ruleMetrics.filter((name, i) => !METRIC_NAMES.includes(name) && ruleMetrics.indexOf(name) === i);
  return [...METRICS, ...extra.flatMap((name) => metricSpec(name) ?? [])];
}
