/**
 * `rpcload trend` per workload: for a run with several workloads, each workload's achieved rate,
 * goodput, p50, p99 and error rate; the latest run's workloads judged against the median of the
 * runs before it that had them (as the whole run is, trend-judge.ts). A workload the latest run
 * has and none before it, or one the runs before it had and the latest lacks, is reported on its
 * own line, not judged. Workload flags inform: the exit code stays the whole run's.
 */
import type { RunResult } from '../../contract/result-schema.ts';
import { errorShare, judgeTrendValue, LATENCY_FLOOR_MS, type TrendFlag, type TrendJudgement } from './trend-judge.ts';

export interface WorkloadPoint {
  readonly name: string;
  readonly achievedPerS: number;
  /** null in files that do not record it. */
  readonly goodputPerS: number | null;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  readonly errorRate: number | null;
}

/** Each workload of a run; none for an older file. */
export function workloadPoints(result: RunResult): WorkloadPoint[] {
  return Object.entries(result.byWorkload ?? {}).map(([name, w]) => ({
    name,
    achievedPerS: w.rps,
    goodputPerS: w.goodput?.perS ?? null,
    p50Ms: w.requests > 0 ? w.latencyMs.p50 : null,
    p99Ms: w.requests > 0 ? w.latencyMs.p99 : null,
    errorRate: errorShare(w.outcomes, w.requests),
  }));
}

const WORKLOAD_METRICS: readonly TrendJudgement<WorkloadPoint>[] = [
  { metric: 'achieved', read: (w) => w.achievedPerS, higherIsWorse: false, relative: true },
  { metric: 'goodput', read: (w) => w.goodputPerS, higherIsWorse: false, relative: true },
  { metric: 'p50', read: (w) => w.p50Ms, higherIsWorse: true, relative: true, absoluteFloor: LATENCY_FLOOR_MS },
  { metric: 'p99', read: (w) => w.p99Ms, higherIsWorse: true, relative: true, absoluteFloor: LATENCY_FLOOR_MS },
  { metric: 'errors', read: (w) => w.errorRate, higherIsWorse: true, relative: false },
];

/** One workload of the latest run, judged against the runs before it that had it. */
export interface WorkloadTrendRow extends WorkloadPoint {
  readonly flags: readonly TrendFlag[];
  readonly improvements: readonly TrendFlag[];
  /** Runs before it that had this workload. */
  readonly history: number;
}

/** A workload only the latest run has (`new`) or only the runs before it had (`gone`). */
export interface WorkloadInOneRun {
  readonly name: string;
  readonly only: 'latest' | 'before';
}

export interface WorkloadTrend {
  readonly rows: readonly WorkloadTrendRow[];
  readonly inOneRun: readonly WorkloadInOneRun[];
}

type WithWorkloads = { readonly workloads?: readonly WorkloadPoint[] };

/**
 * The latest run's workloads against the runs before it (already cut to the trend's window);
 * undefined when these runs name one workload at most (it is the whole run, judged as such).
 */
export function workloadTrend(latest: WithWorkloads, previous: readonly WithWorkloads[]): WorkloadTrend | undefined {
  const all = new Set([latest, ...previous].flatMap((p) => (p.workloads ?? []).map((w) => w.name)));
  if (all.size <= 1) return undefined;
  const before = new Set(previous.flatMap((p) => (p.workloads ?? []).map((w) => w.name)));
  const mine = latest.workloads ?? [];
  const rows = mine.map((point): WorkloadTrendRow => {
    const history = previous.flatMap((p) => (p.workloads ?? []).filter((w) => w.name === point.name));
    const flags: TrendFlag[] = [];
    const improvements: TrendFlag[] = [];
    for (const spec of WORKLOAD_METRICS) {
      const values = history.map(spec.read).filter((v): v is number => v !== null);
      const moved = judgeTrendValue(spec, spec.read(point), values);
      if (moved.worse !== undefined) flags.push(moved.worse);
      if (moved.better !== undefined) improvements.push(moved.better);
    }
    return { ...point, flags, improvements, history: history.length };
  });
  const names = new Set(mine.map((w) => w.name));
  // With no history at all there is nothing to be new against.
  const added = previous.length === 0 ? [] : mine.filter((w) => !before.has(w.name)).map((w) => ({ name: w.name, only: 'latest' as const }));
  const gone = [...before].filter((name) => !names.has(name)).map((name) => ({ name, only: 'before' as const }));
  return { rows, inOneRun: [...added, ...gone] };
}
