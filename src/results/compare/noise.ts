/**
 * Run-to-run noise, pure. Each compared number gets a standard error (SE) per run; a delta is
 * "within noise" when |head − base| ≤ max(K × √(SE_base² + SE_head²), resolution). A run's SE is
 * the larger of a timeline SE (what the run's own per-second series show: drift, GC, bursts) and
 * a sampling SE (finite sample size: what the counts and the histogram show). See README.
 */
import type { TimelineRow } from '../../contract/result-schema.ts';
import type { MetricUnit, NoiseSeries } from './metrics.ts';

export const NOISE_K = 3;
/** Batch means: about this many batches, each at least MIN_BATCH_S seconds long. */
export const TARGET_BATCHES = 10;
export const MIN_BATCH_S = 2;
/** At most this many leading seconds are skipped as warm-up. */
export const MAX_WARMUP_S = 10;

export interface SeriesNoise {
  readonly mean: number;
  /** Standard error of the mean. */
  readonly se: number;
}

export type TimelineNoise = Readonly<Record<NoiseSeries, SeriesNoise | null>>;

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
function sd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1));
}

/**
 * Mean and SE of a per-second series by batch means: neighbouring seconds are correlated (rate
 * windows, GC pauses, a slow dependency), so the seconds are cut into about TARGET_BATCHES
 * consecutive batches of equal length (≥ MIN_BATCH_S s; a trailing remainder is dropped) and the
 * SE is that of the batch means, sd / √batches. With fewer than 3 batches the single seconds are
 * used; below 3 values there is no estimate (null).
 */
export function seriesNoise(values: readonly number[]): SeriesNoise | null {
  if (values.length < 3) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const size = Math.max(MIN_BATCH_S, Math.floor(values.length / TARGET_BATCHES));
  const batches = Math.floor(values.length / size);
  if (batches < 3) return { mean, se: sd(values) / Math.sqrt(values.length) };
  const means = Array.from({ length: batches }, (_, i) => values.slice(i * size, (i + 1) * size).reduce((a, b) => a + b, 0) / size);
  return { mean, se: sd(means) / Math.sqrt(batches) };
}

/**
 * The steady-state seconds of a timeline: dense from t = 0 (a missing second had no requests),
 * without the first ⌈10 %⌉ (at least 1, at most MAX_WARMUP_S: connections, tokens, JIT) and the
 * last second (usually partial).
 */
export function steadySeconds(timeline: readonly TimelineRow[]): TimelineRow[] {
  const lastT = timeline.reduce((max, row) => Math.max(max, row.t), -1);
  const dense: TimelineRow[] = Array.from({ length: lastT + 1 }, (_, t) => ({ t, requests: 0, success: 0, rateLimited: 0, errors: 0, p50: 0, p99: 0 }));
  for (const row of timeline) dense[row.t] = row;
  const warmup = Math.min(MAX_WARMUP_S, Math.max(1, Math.ceil(dense.length / 10)));
  return dense.slice(warmup, -1);
}

/**
 * Noise of every timeline series; ratios and percentiles use only seconds that had requests.
 * `latencyAt(q)` reads the run's overall latency distribution (ms): it tells how much of the
 * per-second percentiles' spread is mere sampling (see percentileDrift).
 */
export function timelineNoise(timeline: readonly TimelineRow[], latencyAt: (q: number) => number): TimelineNoise {
  const steady = steadySeconds(timeline);
  const busy = steady.filter((row) => row.requests > 0);
  return {
    requests: seriesNoise(steady.map((row) => row.requests)),
    errors: seriesNoise(busy.map((row) => row.errors / row.requests)),
    rateLimited: seriesNoise(busy.map((row) => row.rateLimited / row.requests)),
    p50: percentileDrift(busy, (row) => row.p50, 0.5, latencyAt),
    p99: percentileDrift(busy, (row) => row.p99, 0.99, latencyAt),
  };
}

/**
 * What a per-second percentile series says about the run's overall percentile beyond sampling.
 * A second's p99 over n requests wanders by its own sampling error — with 50 requests a second it
 * is nearly that second's max — which the overall p99 over all N requests does not carry (its
 * sampling SE is counted separately, see quantileSamplingSe). The timeline's own evidence is the
 * variance between seconds in *excess* of that expected sampling variance: drift, GC pauses, a
 * noisy neighbour. It reaches the overall figure averaged over the seconds, inflated by how much
 * neighbouring seconds move together (the batch-means SE over the independent-seconds SE).
 */
export function percentileDrift(busy: readonly TimelineRow[], pick: (row: TimelineRow) => number, q: number, latencyAt: (q: number) => number): SeriesNoise | null {
  const values = busy.map(pick);
  const batched = seriesNoise(values);
  if (!batched) return null;
  const spread = sd(values);
  const expectedVariance = busy.reduce((sum, row) => sum + quantileSamplingSe(q, row.requests, latencyAt) ** 2, 0) / busy.length;
  const excessVariance = Math.max(0, spread ** 2 - expectedVariance);
  const independentSe = spread / Math.sqrt(values.length);
  const correlation = independentSe > 0 ? Math.max(1, batched.se / independentSe) : 1;
  return { mean: batched.mean, se: Math.sqrt(excessVariance / values.length) * correlation };
}

/**
 * The timeline SE of a value: absolute where the value is the series' own overall figure (rps,
 * error and 429 rate overall, p50/p99 overall), else the series' relative SE (SE / mean) times the
 * value — a method's p99 or the overall p999 borrow how much the run's p99 wandered.
 */
export function timelineSe(noise: SeriesNoise | null, value: number, own: boolean): number {
  if (!noise) return 0;
  if (own) return noise.se;
  return noise.mean > 0 ? (noise.se / noise.mean) * value : 0;
}

/** Sampling SE of a throughput from N requests in durationS: a Poisson count, √N / duration. */
export function rateSamplingSe(requests: number, durationS: number): number {
  return durationS > 0 ? Math.sqrt(requests) / durationS : 0;
}

/** Sampling SE of a share p of N requests: binomial, √(p(1 − p) / N). */
export function shareSamplingSe(share: number, requests: number): number {
  return requests > 0 ? Math.sqrt((share * (1 - share)) / requests) : 0;
}

/** A quantile's rank SE is taken as at least this many samples (see quantileSamplingSe). */
export const MIN_RANK_SE = 3;

/**
 * Sampling SE of the q-quantile of N samples, distribution-free (the order-statistic rule
 * SE = rank SE ÷ density): the sample quantile's rank has SE h = √(q(1 − q)/N), in quantile
 * terms, and the value moves with the local slope of the distribution, read from the histogram
 * as (v(q + h) − v(q − h)) ÷ 2h, clamped to 0..1 — so SE = slope × h. h is at least
 * MIN_RANK_SE samples: the max and far-tail percentiles rest on a handful of requests, and move
 * as much as the slowest few differ. `valueAt(q)` reads the run's histogram (ms).
 */
export function quantileSamplingSe(q: number, requests: number, valueAt: (q: number) => number): number {
  if (requests === 0) return 0;
  const h = Math.max(Math.sqrt((q * (1 - q)) / requests), MIN_RANK_SE / requests);
  const lo = Math.max(0, q - h);
  const hi = Math.min(1, q + h);
  return ((valueAt(hi) - valueAt(lo)) / (hi - lo)) * h;
}

/** Below this a difference cannot be told apart: HDR's 3 significant digits plus the 3-decimal ms rounding. */
export function resolution(unit: MetricUnit, base: number, head: number): number {
  return unit === 'ms' ? 0.001 * Math.max(Math.abs(base), Math.abs(head)) + 0.001 : 0;
}

/** The noise bound of a delta from both runs' SEs: K × combined SE, at least the resolution. */
export function noiseBound(unit: MetricUnit, base: number, head: number, seBase: number, seHead: number): number {
  return Math.max(NOISE_K * Math.hypot(seBase, seHead), resolution(unit, base, head));
}
