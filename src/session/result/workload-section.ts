/**
 * The result's per-workload figures: each workload's requests, outcomes, latency and service time,
 * schedule lag and goodput (read off the recorder's per-workload data), and per phase what its
 * schedule offered against what it achieved (the offer is the plan's: a rate's mean, a replay's
 * recording at its speed). The description of the workloads comes from the plan; the figures from
 * the recorded data alone, so a checkpoint, the final file and a merge of parts agree.
 */
import type { ReplaySource } from '../../contract/replay-source-schema.ts';
import type { Goodput, WorkloadPhase, WorkloadStats } from '../../contract/result-schema.ts';
import { countAtOrBelowUs, decodeHistogram } from '../../metrics/hdr.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import type { PhaseLoad } from '../../profile/phase-load.ts';
import type { Plan } from '../../profile/plan.ts';
import { replayBaseRatePerS, replaySource } from '../../profile/replay-plan.ts';
import { readEncoded, round3, statsOf } from './result-stats.ts';

/** A workload as the result describes it, from the plan. */
export interface WorkloadDescription {
  readonly name: string;
  readonly kind: WorkloadStats['kind'];
  readonly clients: number;
  readonly phases: readonly DescribedPhase[];
  /** A replay workload's source, without what the run made of it. */
  readonly replay?: Omit<ReplaySource, 'sent'>;
}

interface DescribedPhase {
  /** The phase's name in the result (its key in byPhase). */
  readonly key: string;
  /** Its own name within the workload. */
  readonly name: string;
  readonly startMs: number;
  readonly durationMs: number;
  /** Arrivals per second its schedule offers on average; null in a closed model. */
  readonly offeredPerS: number | null;
}

/** The kind of a workload's load, from its phases. */
function kindOf(loads: readonly PhaseLoad[]): WorkloadStats['kind'] {
  const kinds = new Set(loads.map((load) => load.kind));
  return kinds.size === 1 ? [...kinds][0]! : 'mixed';
}

/** The plan's workloads, described for the result. */
export function describeWorkloads(plan: Plan): WorkloadDescription[] {
  return plan.workloads.map((workload) => {
    let startMs = workload.startAfterMs;
    const phases = workload.phases.map((index): DescribedPhase => {
      const phase = plan.phases[index]!;
      const prefix = `${workload.name}/`;
      const load = phase.load;
      const offeredPerS =
        load.kind === 'rate'
          ? (load.fromPerS + load.toPerS) / 2
          : load.kind === 'replay' && workload.replay !== undefined
            ? replayBaseRatePerS(workload.replay) * workload.replay.speed
            : null;
      const described = {
        key: phase.name,
        name: phase.name.startsWith(prefix) ? phase.name.slice(prefix.length) : phase.name,
        startMs,
        durationMs: phase.durationMs,
        offeredPerS: offeredPerS === null ? null : round3(offeredPerS),
      };
      startMs += phase.durationMs;
      return described;
    });
    return {
      name: workload.name,
      kind: kindOf(workload.phases.map((index) => plan.phases[index]!.load)),
      clients: workload.clients.length,
      phases,
      ...(workload.replay === undefined ? {} : { replay: replaySource(workload.replay) }),
    };
  });
}

/** Successes within the latency bound, from a workload's success latency histogram. */
function goodputOf(encoded: string | undefined, boundMs: number | null, durationS: number): Goodput {
  const histogram = encoded === undefined ? null : decodeHistogram(encoded);
  const requests =
    histogram === null ? 0 : boundMs === null ? histogram.totalCount : countAtOrBelowUs(histogram, boundMs * 1000);
  return { requests, perS: durationS > 0 ? round3(requests / durationS) : 0, latencyBoundMs: boundMs };
}

/** How long a phase actually played in a run of `durationS` (an iterations phase may end early; an aborted run cuts all). */
function playedS(phase: DescribedPhase, durationS: number): number {
  return Math.max(0.001, Math.min(phase.durationMs / 1000, durationS - phase.startMs / 1000));
}

/** Every workload's figures, by name; a workload without a request still has its row (zeros). */
export function workloadSection(
  workloads: readonly WorkloadDescription[],
  data: RecordedData,
  durationS: number,
  goodputBoundMs: number | null,
  replaySent: (workload: WorkloadDescription) => ReplaySource | undefined,
): Record<string, WorkloadStats> {
  const out: Record<string, WorkloadStats> = {};
  for (const workload of workloads) {
    const lag = data.scheduleLagByWorkload?.[workload.name];
    const lagFigures = lag === undefined ? null : readEncoded(lag);
    const phases = workload.phases.map((phase): WorkloadPhase => {
      const requests = data.byPhase[phase.key] === undefined ? 0 : statsOf(data.byPhase[phase.key], durationS).requests;
      return {
        name: phase.name,
        requests,
        offeredPerS: phase.offeredPerS,
        achievedPerS: round3(requests / playedS(phase, durationS)),
      };
    });
    const replay = replaySent(workload);
    out[workload.name] = {
      ...statsOf(data.byWorkload?.[workload.name], durationS),
      ...(lagFigures !== null && lagFigures.count > 0 ? { scheduleLagMs: lagFigures.percentiles } : {}),
      kind: workload.kind,
      clients: workload.clients,
      goodput: goodputOf(data.successLatencyByWorkload?.[workload.name], goodputBoundMs, durationS),
      phases,
      ...(replay === undefined ? {} : { replay }),
    };
  }
  return out;
}
