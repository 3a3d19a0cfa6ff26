/**
 * One run as compare sees it: its stats per scope, its timeline noise (computed once) and its
 * histograms (decoded on first use). A scope is the whole run, one method or one workload.
 */
import { usToMs, valuesAtPercentilesUs, type Histogram } from '../../metrics/hdr.ts';
import type { RunResult, Stats } from '../../contract/result-schema.ts';
import { decodeHistogramAt } from '../../result-file/histograms.ts';
import type { MetricSpec } from './metrics.ts';
import {
  quantileSamplingSe,
  rateSamplingSe,
  shareSamplingSe,
  timelineNoise,
  timelineSe,
  type TimelineNoise,
} from './noise.ts';

/** Where a figure is read: the whole run, one method or one workload. */
export type FigureScope =
  | { readonly kind: 'run' }
  | { readonly kind: 'method'; readonly name: string }
  | { readonly kind: 'workload'; readonly name: string };

export const RUN_SCOPE: FigureScope = { kind: 'run' };
export const methodScope = (method: string | null): FigureScope => (method === null ? RUN_SCOPE : { kind: 'method', name: method });

export class ComparedRunFigures {
  readonly noise: TimelineNoise;
  private readonly histograms = new Map<string, Histogram | null>();

  constructor(
    readonly label: string,
    readonly result: RunResult,
  ) {
    const latency = this.histogram(RUN_SCOPE, 'latency');
    this.noise = timelineNoise(result.timeline, (q) => (latency ? usToMs(latency.getValueAtPercentile(q * 100)) : 0));
  }

  stats(scope: FigureScope): Stats | undefined {
    if (scope.kind === 'run') return this.result.summary;
    return scope.kind === 'method' ? this.result.byMethod[scope.name] : this.result.byWorkload?.[scope.name];
  }

  /** A metric's value in a scope: from the stats block, or from the histogram for a percentile it lacks (p95 …). */
  value(spec: MetricSpec, scope: FigureScope, stats: Stats): number | null {
    if (spec.read !== null) return spec.read(stats);
    const histogram = spec.quantile ? this.histogram(scope, spec.quantile.histogram) : null;
    if (!histogram || !spec.quantile || histogram.totalCount === 0) return null;
    return usToMs(valuesAtPercentilesUs(histogram, [Math.round(spec.quantile.q * 1e6) / 1e4]).valuesUs[0]!);
  }

  /** A decoded histogram, null when the file has none for this scope (noise then uses the timeline only). */
  private histogram(scope: FigureScope, kind: 'latency' | 'serviceTime'): Histogram | null {
    const key = scope.kind === 'run' ? kind : `${scope.kind}\u0000${scope.name}\u0000${kind}`;
    if (!this.histograms.has(key)) {
      const { histograms } = this.result;
      const record = scope.kind === 'run' ? undefined : scope.kind === 'method' ? histograms.byMethod : histograms.byWorkload;
      const encoded = scope.kind === 'run' ? histograms[kind] : record?.[scope.name]?.[kind];
      const recordKey = scope.kind === 'method' ? 'byMethod' : 'byWorkload';
      const path = scope.kind === 'run' ? `histograms.${kind}` : `histograms.${recordKey}[${JSON.stringify(scope.name)}].${kind}`;
      this.histograms.set(key, encoded === undefined ? null : decodeHistogramAt(encoded, `${this.label}: ${path}`));
    }
    return this.histograms.get(key) ?? null;
  }

  /**
   * This run's standard error for a metric in a scope (noise.ts explains both parts). Percentiles:
   * the timeline gives only the drift beyond sampling, so the two add in quadrature. Rates and
   * throughput: the per-second series already carry the sampling noise, so the larger one wins.
   */
  standardError(spec: MetricSpec, scope: FigureScope, stats: Stats, value: number): number {
    const fromTimeline = timelineSe(this.noise[spec.series], value, scope.kind === 'run' && spec.ownSeries);
    const fromSampling = this.samplingSe(spec, scope, stats, value);
    return spec.quantile ? Math.hypot(fromTimeline, fromSampling) : Math.max(fromTimeline, fromSampling);
  }

  /**
   * How much of a latency figure may be the load generator's own doing: the run's schedule lag
   * (actual dispatch − intended start, open model) at the same quantile, in ms; 0 without lag
   * (closed model) or for other metrics. Latency is measured from the intended start, so a stalled
   * generator — a busy CI machine — adds its lag to every percentile; a difference no larger than
   * that cannot be blamed on the server.
   */
  generatorAllowanceMs(spec: MetricSpec): number {
    if (!spec.quantile) return 0;
    const encoded = this.result.histograms.scheduleLag;
    if (encoded === undefined) return 0;
    if (this.lag === undefined) this.lag = decodeHistogramAt(encoded, `${this.label}: histograms.scheduleLag`);
    return this.lag.totalCount === 0 ? 0 : usToMs(this.lag.getValueAtPercentile(spec.quantile.q * 100));
  }

  private lag: Histogram | undefined;

  /**
   * How much of a throughput figure may be the run's own overrun: a rate is requests ÷ wall-clock
   * duration, and a run that took longer than its phases (a drain of stalled replies, a busy CI
   * machine finishing late) divides the same requests by more seconds. The allowance is what that
   * costs the rate: rate × overrun ÷ planned duration; 0 for other metrics, or when the file does
   * not say its phases.
   */
  overrunAllowance(spec: MetricSpec, value: number): number {
    if (spec.unit !== 'per_s') return 0;
    const phases = (this.result.config as { phases?: unknown }).phases;
    if (!Array.isArray(phases)) return 0;
    const plannedS = phases.reduce((sum: number, phase: unknown) => sum + (Number((phase as { durationMs?: unknown }).durationMs) || 0), 0) / 1000;
    const { durationS } = this.result.summary;
    // The allowance equals the whole drop when the overrun explains it; 1e-9 keeps float rounding from deciding.
    return plannedS > 0 && durationS > plannedS ? ((value * (durationS - plannedS)) / plannedS) * (1 + 1e-9) : 0;
  }

  private samplingSe(spec: MetricSpec, scope: FigureScope, stats: Stats, value: number): number {
    // Overall arrivals follow the schedule (open) or the server (closed): only the timeline shows
    // how much they vary. A method's share of them is a random pick of the scenario mix; a
    // workload's rate is counted like one (the timeline has no series of its own for it).
    if (spec.unit === 'per_s') return scope.kind === 'run' ? 0 : rateSamplingSe(stats.requests, this.result.summary.durationS);
    if (spec.unit === 'ratio') return shareSamplingSe(value, stats.requests);
    const histogram = spec.quantile ? this.histogram(scope, spec.quantile.histogram) : null;
    if (!histogram || !spec.quantile) return 0;
    return quantileSamplingSe(spec.quantile.q, histogram.totalCount, (q) => usToMs(histogram.getValueAtPercentile(q * 100)));
  }
}
