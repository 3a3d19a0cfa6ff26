/**
 * How `rpcload trend` judges one figure of a run against the runs before it: the median of their
 * values, and a noise of the larger of a floor (10 % relative, or 0.5 percentage points for error
 * rates; latencies must also move by more than 1 ms, as compare's default `p50:+10%+1ms`) and 3
 * scaled median absolute deviations. Pure.
 */
import { outcomeClass } from '../../api/outcome.ts';

/** capacity is a capacity file's; goodput and achieved (per second) are a workload's. */
export type TrendMetric = 'capacity' | 'p50' | 'p99' | 'errors' | 'goodput' | 'achieved';

export interface TrendFlag {
  readonly metric: TrendMetric;
  readonly value: number;
  readonly median: number;
  /** How far from the median counted as noise (same unit as value). */
  readonly noise: number;
}

/** Relative noise floors and the absolute one for error rates. */
const RELATIVE_FLOOR = 0.1;
const ERRORS_FLOOR = 0.005;
/**
 * A latency moves by more than this before trend names it: a sub-millisecond p50 moves by 10 %
 * with the machine's own scheduling, which says nothing about the release.
 */
export const LATENCY_FLOOR_MS = 1;
const MAD_SCALE = 1.4826;
const MAD_FACTOR = 3;

export function errorShare(outcomes: Readonly<Record<string, number>>, requests: number): number | null {
  if (requests === 0) return null;
  let errors = 0;
  for (const [key, n] of Object.entries(outcomes)) if (outcomeClass(key) === 'error') errors += n;
  return errors / requests;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** How a metric is judged: which way is worse, and whether its noise floor is relative (else 0.5 pp). */
export interface TrendJudgement<P> {
  readonly metric: TrendMetric;
  readonly read: (p: P) => number | null;
  readonly higherIsWorse: boolean;
  readonly relative: boolean;
  /** An absolute floor the move must also pass, in the metric's unit (1 ms for latencies). */
  readonly absoluteFloor?: number;
}

/**
 * One metric's value against the median of its history: a flag when it moved beyond the noise
 * the bad way (`worse`) or the good way (`better`); nothing without a value or a history.
 */
export function judgeTrendValue(
  spec: Omit<TrendJudgement<unknown>, 'read'>,
  value: number | null,
  history: readonly number[],
  options: { readonly bracket?: number; readonly canDrop?: boolean } = {},
): { worse?: TrendFlag; better?: TrendFlag } {
  if (value === null || history.length === 0) return {};
  const mid = median(history);
  const mad = median(history.map((v) => Math.abs(v - mid))) * MAD_SCALE;
  const floor = Math.max(spec.relative ? RELATIVE_FLOOR * Math.abs(mid) : ERRORS_FLOOR, spec.absoluteFloor ?? 0);
  const noise = Math.max(floor, MAD_FACTOR * mad) + (options.bracket ?? 0);
  const up = value - mid > noise;
  const down = mid - value > noise;
  const flag = { metric: spec.metric, value, median: mid, noise };
  if (spec.higherIsWorse ? up : down && options.canDrop !== false) return { worse: flag };
  if (spec.higherIsWorse ? down : up) return { better: flag };
  return {};
}

