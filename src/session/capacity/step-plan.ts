/**
 * One step of a capacity search as a plan to run: the searched workload's warm-up and measured
 * hold at the step's load (a rate, users, or a speed of the recording), every other workload
 * beside it with its own phases and start, cut to the step's length (each step is a run of its
 * own: they start again with it); what the live view and the judge are told of it; the
 * selections its recorder keeps (each SLO line narrowed to the hold, and the searched workload's
 * own requests); and — for a replay — the schedule's rate. Pure.
 */
import type { CapacityStepDefinition } from '../../contract/live-view.ts';
import type { CapacityPlan } from '../../profile/capacity-settings.ts';
import { concurrencyLoad, rateLoad, REPLAY_LOAD, type PhaseLoad } from '../../profile/phase-load.ts';
import type { PhasePlan, Plan, WorkloadPlan } from '../../profile/plan.ts';
import { replayAtSpeed, replayBaseRatePerS } from '../../profile/replay-plan.ts';
import { parseThreshold, type ParsedThreshold } from '../../profile/thresholds.ts';
import type { SearchedWorkload } from './searched-workload.ts';
import { holdLine } from './step-slo.ts';

export interface StepPlan {
  readonly def: CapacityStepDefinition;
  /** The searched workload's warm-up (when the search has one) and hold. */
  readonly phases: readonly PhasePlan[];
  /** The plan the step's load runs (not yet aimed at the target). */
  readonly plan: Plan;
  /** A replay's schedule: the recording's calls per second × the speed; null for a synthetic load. */
  readonly scheduledPerS: number | null;
  /** With workloads beside it: the selection (its key) of the searched workload's requests; null without. */
  readonly workloadSelection: string | null;
}

/** What a step needs to know of the search: the workload it scales and the SLO lines (scoped to it). */
export interface StepSearch {
  readonly searched: SearchedWorkload;
  readonly slo: readonly ParsedThreshold[];
}

/**
 * A load cut to its first `share` (0–1] of its length: a ramp ends where it would have been
 * by then; anything else is unchanged.
 */
function cutLoad(load: PhaseLoad, share: number): PhaseLoad {
  if (load.kind !== 'rate' || share >= 1) return load;
  return rateLoad(load.fromPerS, load.fromPerS + (load.toPerS - load.fromPerS) * share);
}

/**
 * A workload's phases as they run within a step of `stepMs`: from its start (`startAfterMs`), back
 * to back, the one the step's end falls in cut there, those after it dropped. Each is renamed
 * after the step (`step-03 background/steady`), so steps keep their figures apart.
 */
export function phasesWithin(
  phases: readonly PhasePlan[],
  startAfterMs: number,
  stepMs: number,
  prefix: string,
): PhasePlan[] {
  const within: PhasePlan[] = [];
  let atMs = startAfterMs;
  for (const phase of phases) {
    if (atMs >= stepMs) break;
    const durationMs = Math.min(phase.durationMs, stepMs - atMs);
    const load = cutLoad(phase.load, durationMs / phase.durationMs);
    within.push({ ...phase, name: `${prefix} ${phase.name}`, durationMs, load });
    atMs += phase.durationMs;
  }
  return within;
}

/** Step `index` (1-based, across search and confirmation) at `load`, held for `holdMs`. */
export function stepPlan(
  plan: Plan,
  cap: CapacityPlan,
  search: StepSearch,
  kind: 'search' | 'confirm',
  index: number,
  load: number,
  holdMs: number,
): StepPlan {
  const { searched } = search;
  const name = `${kind === 'search' ? 'step' : 'confirm'}-${String(index).padStart(2, '0')}`;
  const unit = plan.workloads[searched.index]!;
  // A replay's load is a speed of the recording: every phase of its step replays the window from its start.
  const replay = unit.replay;
  const perS = replay === undefined ? load : load * replayBaseRatePerS(replay);
  const phaseLoad: PhaseLoad =
    replay !== undefined ? REPLAY_LOAD : cap.model === 'open' ? rateLoad(load) : concurrencyLoad(load);
  const warmUp = cap.warmUpMs > 0 ? `${name} warm-up` : null;
  // Steps keep the workload's arrival process (its first phase's), so a Poisson workload is searched as Poisson.
  const arrivals = plan.phases[unit.phases[0] ?? -1]?.arrivals ?? 'uniform';
  const stepMs = cap.warmUpMs + holdMs;
  const phases: PhasePlan[] = [];
  const workloads: WorkloadPlan[] = [];
  // Every phase of a replay step plays the same window from its start, looping, at the step's speed.
  const source = replay === undefined ? plan : replayAtSpeed(plan, searched.index, load);
  source.workloads.forEach((workload, w) => {
    const own: PhasePlan[] =
      w === searched.index
        ? [
            ...(warmUp === null
              ? []
              : [{ name: warmUp, workload: 0, durationMs: cap.warmUpMs, load: phaseLoad, arrivals }]),
            { name, workload: 0, durationMs: holdMs, load: phaseLoad, arrivals },
          ]
        : phasesWithin(
            workload.phases.map((p) => plan.phases[p]!),
            workload.startAfterMs,
            stepMs,
            name,
          );
    // A workload that would start after the step has ended has no part in it.
    if (own.length === 0) return;
    const first = phases.length;
    phases.push(...own.map((phase) => ({ ...phase, workload: workloads.length })));
    workloads.push({
      ...workload,
      startAfterMs: w === searched.index ? 0 : workload.startAfterMs,
      phases: own.map((_, i) => first + i),
    });
  });
  const selection = searched.beside ? parseThreshold(`requests{workload:${searched.name}} >= 0`) : null;
  const thresholds = [
    ...search.slo.map((line) => holdLine(line, name, searched.name)),
    ...(selection === null ? [] : [selection]),
  ];
  return {
    def: { index, kind, model: cap.model, load, phase: name, warmUpPhase: warmUp, warmUpMs: cap.warmUpMs, holdMs },
    phases: phases.filter((p) => p.name === name || p.name === warmUp),
    plan: { ...source, phases, workloads, thresholds },
    scheduledPerS: replay === undefined || cap.model !== 'open' ? null : perS,
    workloadSelection: selection?.selectorKey ?? null,
  };
}
