/**
 * Which workload a capacity search scales, and in which unit: the one `--workload` (or the
 * capacity section's `workload`) names, or the profile's only one. With several workloads the
 * searched one's own load says what is searched — its rate (arrivals per second), its users, or
 * its replay's speed — while the others run beside it as configured; a profile with one workload
 * is searched as the capacity section says (a rate unless the model is closed; a replay's speed).
 * A workload of iterations has no load to scale and is refused. Pure.
 */
import { RpcloadError } from '../../errors.ts';
import { CAPACITY_DEFAULTS, resolveCapacity, type CapacityPlan } from '../../profile/capacity-settings.ts';
import { peakOf } from '../../profile/phase-load.ts';
import type { Plan } from '../../profile/plan.ts';
import { expected, ProfileError } from '../../profile/problems.ts';
import { selectorProblems } from '../../profile/selection.ts';
import type { ParsedThreshold } from '../../profile/thresholds.ts';
import type { SearchedUnit } from './capacity-finding.ts';
import { searchSlo } from './step-slo.ts';

export interface SearchedWorkload {
  /** Its index in the plan's workloads. */
  readonly index: number;
  readonly name: string;
  /** Other workloads run beside it: the steps judge its own requests, not the whole traffic. */
  readonly beside: boolean;
  /** The answer names it: the profile has several workloads (one alone is searched and said as before). */
  readonly named: boolean;
  /** What a step's load counts: arrivals per second, users, or a speed of the recording. */
  readonly unit: SearchedUnit;
  /** What its arrivals are: requests when each of its scenarios is one step, else iterations of them. */
  readonly rateNoun: 'requests' | 'iterations';
}

/**
 * The index of the workload `name` (null: the only one). More than one workload and no name, or a
 * name the profile lacks, is a one-line error (exit 2).
 */
export function searchedIndex(plan: Pick<Plan, 'workloads' | 'source'>, name: string | null): number {
  const names = plan.workloads.map((w) => w.name);
  if (name === null) {
    if (names.length === 1) return 0;
    throw new RpcloadError(
      'bad_flag',
      `capacity: expected --workload NAME (or capacity.workload): the profile has ${names.length} workloads ` +
        `(${names.join(', ')}); the search scales one while the others run beside it`,
    );
  }
  const index = names.indexOf(name);
  if (index < 0)
    throw new ProfileError(plan.source, [
      expected('/capacity/workload', `a workload of the profile (${names.join(', ')})`, name),
    ]);
  return index;
}

/** What the workload's load is: a replay, or its first phase's kind. */
function loadKind(plan: Plan, index: number): 'rate' | 'concurrency' | 'iterations' | 'replay' {
  const workload = plan.workloads[index]!;
  if (workload.replay !== undefined || workload.replaySettings !== undefined) return 'replay';
  const kinds = workload.phases.map((p) => plan.phases[p]!.load.kind);
  if (kinds.includes('iterations')) return 'iterations';
  return kinds[0] === 'concurrency' ? 'concurrency' : 'rate';
}

const defaultStart = (unit: SearchedUnit): number =>
  unit === 'replay' ? 1 : unit === 'closed' ? CAPACITY_DEFAULTS.startClosed : CAPACITY_DEFAULTS.startOpen;

/**
 * Beside other workloads, the searched one's load as configured — its phases' highest rate or
 * users: the search's scale factor starts at 1 (a replay: at 1× the recording); null when it
 * runs alone (its phases are a placeholder then) or its load has no peak.
 */
function ownPeak(plan: Plan, index: number, beside: boolean, unit: SearchedUnit): number | null {
  if (!beside || unit === 'replay') return null;
  const peak = Math.max(0, ...plan.workloads[index]!.phases.map((p) => peakOf(plan.phases[p]!.load)));
  if (peak <= 0) return null;
  return unit === 'closed' ? Math.ceil(peak) : peak;
}

/**
 * The searched workload of `plan` and the capacity settings the search runs with: the model its
 * load implies (with several workloads), and the start — as given, else (beside others) its own
 * load as configured, else the default of what is searched (20/s, 1 user, 1×).
 */
export function resolveSearch(
  plan: Plan,
  cap: CapacityPlan,
): { readonly searched: SearchedWorkload; readonly cap: CapacityPlan } {
  const index = searchedIndex(plan, cap.workload);
  const name = plan.workloads[index]!.name;
  const kind = loadKind(plan, index);
  const beside = plan.workloads.length > 1;
  if (kind === 'iterations')
    throw new RpcloadError(
      'bad_flag',
      `capacity: workload ${name} runs iterations, which have no load to scale: ` +
        'search a workload of a rate, of users (concurrency) or a replay',
    );
  if (kind === 'replay' && cap.model === 'closed')
    throw new RpcloadError('bad_flag', `--closed: a replay is open-model (the recording sets the arrivals)`);
  if (beside && kind === 'rate' && cap.model === 'closed')
    throw new RpcloadError(
      'bad_flag',
      `--closed: workload ${name} runs a rate; with several workloads the searched one's own load is scaled ` +
        '(drop --closed and capacity.model "closed", or search a workload of users)',
    );
  const model = beside ? (kind === 'concurrency' ? 'closed' : 'open') : cap.model;
  const unit: SearchedUnit = kind === 'replay' ? 'replay' : model;
  const start = cap.startGiven ? cap.start : (ownPeak(plan, index, beside, unit) ?? defaultStart(unit));
  const oneStep = plan.workloads[index]!.scenarios.every((s) => plan.scenarios[s.index]!.steps.length === 1);
  return {
    searched: { index, name, beside, named: beside, unit, rateNoun: oneStep ? 'requests' : 'iterations' },
    cap: { ...cap, model, start, startGiven: true, workload: name },
  };
}

/** What is searched, settled before anything runs: the workload, its settings, and the SLO lines scoped to it. */
export interface SearchSetup {
  readonly searched: SearchedWorkload;
  readonly cap: CapacityPlan;
  readonly slo: readonly ParsedThreshold[];
}

/**
 * The search's setup from the plan; a bad one (no workload named among several, one of
 * iterations, an SLO line that picks none of the searched workload's requests) is a one-line
 * error (exit 2) before any load.
 */
export function searchSetup(plan: Plan): SearchSetup {
  const { searched, cap } = resolveSearch(plan, plan.capacity ?? resolveCapacity({}, []));
  const slo = searchSlo(cap.slo ?? plan.thresholds, searched.name, searched.beside);
  const pointer = (i: number): string => (cap.slo !== null ? `/capacity/slo/${i}` : `/thresholds/${i}`);
  const problems = selectorProblems(plan, slo, pointer);
  if (problems.length > 0) throw new ProfileError(plan.source, problems);
  return { searched, cap, slo };
}
