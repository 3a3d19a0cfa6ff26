/**
 * The live figures of each workload of a run with several: counts by outcome class, completions
 * per second over the last few seconds, and a latency histogram — what the live views show per
 * workload, read a few times a second without summing the workload's cells. A recorder of one
 * workload keeps none of this (its overall figures are the workload's), so a run without workloads
 * pays nothing for it per request. Schedule lag and goodput are read off what the recorder keeps
 * anyway (its phases' lag, its workloads' success latency).
 */
import type { OutcomeClass } from '../api/outcome.ts';
import type { LiveWorkloadRow } from '../contract/live-snapshot.ts';
import {
  addHistograms,
  countAtOrBelowUs,
  createLatencyHistogram,
  recordUs,
  usToMs,
  valuesAtPercentilesUs,
  type Histogram,
} from './hdr.ts';
import type { Slices } from './slices.ts';

/** Seconds of per-second counts kept per workload: the last whole second is always among them. */
const SECONDS = 4;

/** What the rows read besides the live counts: the recorder's own per-phase and per-workload keeping. */
export interface WorkloadKeeping {
  readonly slices: Slices;
  /** Per phase, its schedule lag (undefined before its first open-model request). */
  readonly phaseLag: readonly (Histogram | undefined)[];
  /** Per workload, its skipped arrivals by reason. */
  readonly skippedByWorkload: ReadonlyMap<number, ReadonlyMap<string, number>>;
  /** The SLO's latency bound (ms) for goodput; null: every success counts. */
  readonly goodputBoundMs: number | null;
}

export class WorkloadLive {
  /** Per workload: requests, success, rate_limited, error. */
  private readonly counts: Float64Array;
  /** Per workload, SECONDS slots: the second each slot counts, and its completions. */
  private readonly seconds: Float64Array;
  private readonly perSecond: Float64Array;
  private readonly latency: Histogram[];

  constructor(workloads: number) {
    this.counts = new Float64Array(workloads * 4);
    this.seconds = new Float64Array(workloads * SECONDS).fill(-1);
    this.perSecond = new Float64Array(workloads * SECONDS);
    this.latency = Array.from({ length: workloads }, createLatencyHistogram);
  }

  record(workload: number, latencyUs: number, cls: OutcomeClass, doneAtMs: number): void {
    const at = workload * 4;
    this.counts[at]!++;
    this.counts[at + (cls === 'success' ? 1 : cls === 'rate_limited' ? 2 : 3)]!++;
    const second = Math.floor(doneAtMs / 1000);
    const slot = workload * SECONDS + (second % SECONDS);
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.perSecond[slot] = 0;
    }
    this.perSecond[slot]!++;
    const histogram = this.latency[workload];
    if (histogram !== undefined) recordUs(histogram, latencyUs);
  }

  /** Every workload's row, its completions per second read for the last whole second before `nowS`. */
  rows(nowS: number, keeping: WorkloadKeeping): LiveWorkloadRow[] {
    const t = nowS - 1;
    return keeping.slices.workloads.map((name, w) => {
      const at = w * 4;
      const slot = w * SECONDS + (((t % SECONDS) + SECONDS) % SECONDS);
      const { valuesUs } = valuesAtPercentilesUs(this.latency[w]!, [50, 99]);
      const lag = workloadLag(keeping, w);
      const skipped = keeping.skippedByWorkload.get(w);
      return {
        name,
        requests: this.counts[at]!,
        success: this.counts[at + 1]!,
        rateLimited: this.counts[at + 2]!,
        errors: this.counts[at + 3]!,
        rpsLastSecond: this.seconds[slot] === t ? this.perSecond[slot]! : 0,
        latencyMs: { p50: usToMs(valuesUs[0]!), p99: usToMs(valuesUs[1]!) },
        scheduleLagP99Ms: lag === null ? null : p99Ms(lag),
        goodput: goodputOf(keeping, w),
        skipped: skipped === undefined ? 0 : sumOf(skipped),
      };
    });
  }
}

/** A histogram's p99 (ms). */
export function p99Ms(histogram: Histogram): number {
  return usToMs(valuesAtPercentilesUs(histogram, [99]).valuesUs[0]!);
}

/** A workload's successes within the SLO's bound so far. */
export function goodputOf(keeping: Pick<WorkloadKeeping, 'slices' | 'goodputBoundMs'>, workload: number): number {
  return goodputWithin(keeping.slices.successLatencyOf(workload), keeping.goodputBoundMs);
}

/** Successes within the SLO's bound (all of them without a bound). */
export function goodputWithin(successes: Histogram | undefined, boundMs: number | null): number {
  if (successes === undefined) return 0;
  return boundMs === null ? successes.totalCount : countAtOrBelowUs(successes, boundMs * 1000);
}

/** The total of a count per key. */
export function sumOf(counts: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const n of counts.values()) total += n;
  return total;
}

/** A workload's schedule lag: its phases' (added up only when more than one has any); null when none has. */
function workloadLag(keeping: WorkloadKeeping, workload: number): Histogram | null {
  const lags: Histogram[] = [];
  keeping.phaseLag.forEach((lag, phase) => {
    if (lag !== undefined && lag.totalCount > 0 && keeping.slices.workloadOf(phase) === workload) lags.push(lag);
  });
  return lags.length === 0 ? null : lags.length === 1 ? lags[0]! : addHistograms(lags);
}
