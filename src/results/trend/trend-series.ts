/**
 * `rpcload trend`: result files in time order, one point per run (label, capacity, p50/p99 and
 * error rate), and which runs moved beyond the noise from the median of the runs before them —
 * worse (a regression, what fails a nightly job) or better (said as plainly, never "within the noise").
 * Pure over parsed results; reading files and directories is the caller's.
 *
 * For capacity files the figures are the answer's: the capacity, and the latency and errors of
 * the step that gave it (the confirmation when there was one). For run files: the summary.
 * Noise for each metric is the larger of a floor (10 % relative for capacity and latency, 0.5
 * percentage points for errors) and 3 scaled median absolute deviations of the previous runs, so
 * a history that already wobbles needs a bigger move to flag; a capacity's own bracket widens it.
 */
import { outcomeClass } from '../../api/outcome.ts';
import type { RunResult } from '../../contract/result-schema.ts';

export interface TrendPoint {
  readonly file: string;
  readonly label: string | null;
  readonly kind: RunResult['run']['kind'];
  readonly startedAt: string;
  readonly status: string;
  /** Capacity files only. */
  readonly capacityPerS: number | null;
  readonly capacityAtLeast: boolean;
  /** Relative width of the capacity's bracket; 0 when it has no top. */
  readonly capacityWidth: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly errorRate: number | null;
}

export type TrendMetric = 'capacity' | 'p50' | 'p99' | 'errors';

export interface TrendFlag {
  readonly metric: TrendMetric;
  readonly value: number;
  readonly median: number;
  /** How far from the median counted as noise (same unit as value). */
  readonly noise: number;
}

export interface TrendRow extends TrendPoint {
  /** Worse than the median of the previous `window` runs beyond the noise; empty = fine. */
  readonly flags: readonly TrendFlag[];
  /** Better than that median beyond the noise. */
  readonly improvements: readonly TrendFlag[];
  /** Runs the median was taken over (0 for the first). */
  readonly history: number;
}

export interface TrendSeries {
  readonly rows: readonly TrendRow[];
  readonly window: number;
  /** The latest run is flagged. */
  readonly latestRegressed: boolean;
}

/** Relative noise floors and the absolute one for error rates. */
const RELATIVE_FLOOR = 0.1;
const ERRORS_FLOOR = 0.005;
const MAD_SCALE = 1.4826;
const MAD_FACTOR = 3;

function errorShare(outcomes: Readonly<Record<string, number>>, requests: number): number | null {
  if (requests === 0) return null;
  let errors = 0;
  for (const [key, n] of Object.entries(outcomes)) if (outcomeClass(key) === 'error') errors += n;
  return errors / requests;
}

/** A result file as one point of the series. */
export function trendPoint(file: string, result: RunResult): TrendPoint {
  const capacity = result.capacity;
  const common = { file, label: result.run.label ?? null, kind: result.run.kind, startedAt: result.run.startedAt, status: result.run.status };
  if (capacity !== undefined) {
    const answer =
      capacity.steps.find((s) => s.kind === 'confirm' && s.load === capacity.confirmation?.load) ??
      capacity.steps.find((s) => s.kind === 'search' && s.retried !== true && s.load === capacity.bracket[0]);
    const [low, high] = capacity.bracket;
    return {
      ...common,
      capacityPerS: capacity.ratePerS,
      capacityAtLeast: capacity.atLeast,
      capacityWidth: low !== null && high !== null && low > 0 ? (high - low) / low : 0,
      p50Ms: answer?.latencyMs.p50 ?? null,
      p99Ms: answer?.latencyMs.p99 ?? null,
      errorRate: answer?.errorRate ?? null,
    };
  }
  const { summary } = result;
  return {
    ...common,
    capacityPerS: null,
    capacityAtLeast: false,
    capacityWidth: 0,
    p50Ms: summary.requests > 0 ? summary.latencyMs.p50 : null,
    p99Ms: summary.requests > 0 ? summary.latencyMs.p99 : null,
    errorRate: errorShare(summary.outcomes, summary.requests),
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const METRICS: readonly { metric: TrendMetric; read: (p: TrendPoint) => number | null; higherIsWorse: boolean; relative: boolean }[] = [
  { metric: 'capacity', read: (p) => p.capacityPerS, higherIsWorse: false, relative: true },
  { metric: 'p50', read: (p) => p.p50Ms, higherIsWorse: true, relative: true },
  { metric: 'p99', read: (p) => p.p99Ms, higherIsWorse: true, relative: true },
  { metric: 'errors', read: (p) => p.errorRate, higherIsWorse: true, relative: false },
];

/** The metrics that moved beyond the noise from the median of the previous runs, the bad way and the good way. */
function flagsOf(point: TrendPoint, previous: readonly TrendPoint[]): { worse: TrendFlag[]; better: TrendFlag[] } {
  const worse: TrendFlag[] = [];
  const better: TrendFlag[] = [];
  for (const spec of METRICS) {
    const value = spec.read(point);
    const history = previous.map(spec.read).filter((v): v is number => v !== null);
    if (value === null || history.length === 0) continue;
    const mid = median(history);
    const mad = median(history.map((v) => Math.abs(v - mid))) * MAD_SCALE;
    const floor = spec.relative ? RELATIVE_FLOOR * Math.abs(mid) : ERRORS_FLOOR;
    const bracket = spec.metric === 'capacity' ? point.capacityWidth * value : 0;
    const noise = Math.max(floor, MAD_FACTOR * mad) + bracket;
    const up = value - mid > noise;
    const down = mid - value > noise;
    const flag = { metric: spec.metric, value, median: mid, noise };
    // An "at least" capacity has no top: it cannot show a drop (but a rise is a rise).
    const canDrop = !(spec.metric === 'capacity' && point.capacityAtLeast);
    if (spec.higherIsWorse ? up : down && canDrop) worse.push(flag);
    else if (spec.higherIsWorse ? down : up) better.push(flag);
  }
  return { worse, better };
}

/** The series in time order, each run judged against the median of up to `window` runs before it. */
export function trendSeries(points: readonly TrendPoint[], window = 5): TrendSeries {
  const ordered = [...points].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.file.localeCompare(b.file));
  const rows = ordered.map((point, i) => {
    const previous = ordered.slice(Math.max(0, i - window), i);
    const { worse, better } = flagsOf(point, previous);
    return { ...point, flags: worse, improvements: better, history: previous.length };
  });
  return { rows, window, latestRegressed: (rows.at(-1)?.flags.length ?? 0) > 0 };
}
