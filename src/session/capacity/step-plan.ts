/**
 * One step of a capacity search as a plan to run: its warm-up and measured hold at the step's
 * load (a rate, users, or a speed of the recording), what the live view and the judge are told of
 * it, and — for a replay — the schedule's rate. Pure.
 */
import type { CapacityStepDefinition } from '../../contract/live-view.ts';
import type { CapacityPlan } from '../../profile/capacity-settings.ts';
import type { PhasePlan, Plan } from '../../profile/plan.ts';
import { replayAtSpeed, replayBaseRatePerS } from '../../profile/replay-plan.ts';

export interface StepPlan {
  readonly def: CapacityStepDefinition;
  /** The warm-up (when the search has one) and the hold. */
  readonly phases: readonly PhasePlan[];
  /** The plan the step's load runs (not yet aimed at the target). */
  readonly plan: Plan;
  /** A replay's schedule: the recording's calls per second × the speed; null for a synthetic load. */
  readonly scheduledPerS: number | null;
}

/** Step `index` (1-based, across search and confirmation) at `load`, held for `holdMs`. */
export function stepPlan(plan: Plan, cap: CapacityPlan, kind: 'search' | 'confirm', index: number, load: number, holdMs: number): StepPlan {
  const name = `${kind === 'search' ? 'step' : 'confirm'}-${String(index).padStart(2, '0')}`;
  // A replay's load is a speed of the recording: its phases say the calls per second that makes.
  const perS = plan.replay === undefined ? load : load * replayBaseRatePerS(plan.replay);
  const phaseLoad: PhasePlan['load'] =
    cap.model === 'open' ? { kind: 'rate', fromPerS: perS, toPerS: perS } : { kind: 'concurrency', vus: load };
  const warmUp = cap.warmUpMs > 0 ? `${name} warm-up` : null;
  // Steps keep the profile's arrival process (its first phase's), so a Poisson workload is searched as Poisson.
  const arrivals = plan.phases[0]?.arrivals ?? 'uniform';
  const phases: PhasePlan[] = [
    ...(warmUp === null ? [] : [{ name: warmUp, durationMs: cap.warmUpMs, load: phaseLoad, arrivals }]),
    { name, durationMs: holdMs, load: phaseLoad, arrivals },
  ];
  return {
    def: { index, kind, model: cap.model, load, phase: name, warmUpPhase: warmUp, warmUpMs: cap.warmUpMs, holdMs },
    phases,
    // Every phase of a replay step plays the same window from its start, looping, at the step's speed.
    plan: { ...(plan.replay === undefined ? plan : replayAtSpeed(plan, load)), phases },
    scheduledPerS: plan.replay === undefined || cap.model !== 'open' ? null : perS,
  };
}
