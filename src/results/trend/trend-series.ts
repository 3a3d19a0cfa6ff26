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
import type { RunResult } from '../../contract/result-schema.ts';
import { errorShare, judgeTrendValue, LATENCY_FLOOR_MS, type TrendFlag, type TrendJudgement } from './trend-judge.ts';
import { workloadPoints, workloadTrend, type WorkloadPoint, type WorkloadTrend } from './trend-workloads.ts';

export type { TrendFlag, TrendMetric } from './trend-judge.ts';
export { median } from './trend-judge.ts';

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
  /** Each workload's figures (trend-workloads.ts); absent in files written before workloads. */
  readonly workloads?: readonly WorkloadPoint[];
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
  /** The latest run is flagged (its workloads' flags inform, they do not count here). */
  readonly latestRegressed: boolean;
  /** The latest run's workloads against the runs before it, when it had several. */
  readonly workloads?: WorkloadTrend;
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
  const workloads = workloadPoints(result);
  return {
    ...common,
    ...(workloads.length > 0 ? { workloads } : {}),
    capacityPerS: null,
    capacityAtLeast: false,
    capacityWidth: 0,
    p50Ms: summary.requests > 0 ? summary.latencyMs.p50 : null,
    p99Ms: summary.requests > 0 ? summary.latencyMs.p99 : null,
    errorRate: errorShare(summary.outcomes, summary.requests),
  };
}

const METRICS: readonly TrendJudgement<TrendPoint>[] = [
  { metric: 'capacity', read: (p) => p.capacityPerS, higherIsWorse: false, relative: true },
  { metric: 'p50', read: (p) => p.p50Ms, higherIsWorse: true, relative: true, absoluteFloor: LATENCY_FLOOR_MS },
  { metric: 'p99', read: (p) => p.p99Ms, higherIsWorse: true, relative: true, absoluteFloor: LATENCY_FLOOR_MS },
  { metric: 'errors', read: (p) => p.errorRate, higherIsWorse: true, relative: false },
];

/** The metrics that moved beyond the noise from the median of the previous runs, the bad way and the good way. */
function flagsOf(point: TrendPoint, previous: readonly TrendPoint[]): { worse: TrendFlag[]; better: TrendFlag[] } {
  const worse: TrendFlag[] = [];
  const better: TrendFlag[] = [];
  for (const spec of METRICS) {
    const value = spec.read(point);
    const history = previous.map(spec.read).filter((v): v is number => v !== null);
    const bracket = spec.metric === 'capacity' && value !== null ? point.capacityWidth * value : 0;
    // An "at least" capacity has no top: it cannot show a drop (but a rise is a rise).
    const canDrop = !(spec.metric === 'capacity' && point.capacityAtLeast);
    const moved = judgeTrendValue(spec, value, history, { bracket, canDrop });
    if (moved.worse !== undefined) worse.push(moved.worse);
    if (moved.better !== undefined) better.push(moved.better);
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
  const latest = rows.at(-1);
  const previous = ordered.slice(Math.max(0, ordered.length - 1 - window), -1);
  const workloads = latest === undefined ? undefined : workloadTrend(latest, previous);
  return { rows, window, latestRegressed: (latest?.flags.length ?? 0) > 0, ...(workloads === undefined ? {} : { workloads }) };
}
