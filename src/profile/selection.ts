/**
 * Which requests a threshold's selector picks, in the plan's own terms. A request is a step of a
 * scenario, sent in a phase (of a workload) by a client; a selector term names a workload, a
 * scenario, a phase (its own name, or `workload/phase`), a method, a client or a step tag. The
 * recorder slices its figures by phase × step (a "cell"), so a selection is a set of cells plus,
 * when it names a client, that client: plain data the recorder applies without knowing the plan.
 * Also the check that every selector picks something: a typo is a problem naming the known values.
 */
import type { Plan, StepPlan } from './plan.ts';
import type { Problem } from './problems.ts';
import { SELECTOR_KEYS, type ParsedThreshold, type SelectorTerm } from './thresholds.ts';

/** One step of the plan's flattened list (every scenario's steps in order): the recorder's step dimension. */
export interface PlanStep {
  readonly scenario: number;
  readonly step: StepPlan;
}

/** Every step of every scenario, scenario by scenario: a sample's step index points here. */
export function planSteps(plan: Pick<Plan, 'scenarios'>): PlanStep[] {
  return plan.scenarios.flatMap((scenario, s) => scenario.steps.map((step) => ({ scenario: s, step })));
}

/** The requests a selector picks: cells `phase × steps + step`, and the one client it names (null: any). */
export interface Selection {
  readonly cells: readonly number[];
  readonly client: number | null;
}

/** A phase's own name, without the `workload/` its plan name carries when there are several workloads. */
function ownName(plan: Pick<Plan, 'workloads'>, phaseName: string, workload: number): string {
  const prefix = `${plan.workloads[workload]!.name}/`;
  return plan.workloads.length > 1 && phaseName.startsWith(prefix) ? phaseName.slice(prefix.length) : phaseName;
}

/** Whether the cell (phase, step) holds requests the terms pick, client terms aside. */
function cellMatches(plan: Plan, phaseIndex: number, planStep: PlanStep, terms: readonly SelectorTerm[]): boolean {
  const phase = plan.phases[phaseIndex]!;
  const workload = plan.workloads[phase.workload]!;
  if (!workload.scenarios.some((s) => s.index === planStep.scenario)) return false;
  return terms.every(({ key, value }) => {
    switch (key) {
      case 'workload':
        return workload.name === value;
      case 'scenario':
        return plan.scenarios[planStep.scenario]!.name === value;
      case 'phase':
        return phase.name === value || ownName(plan, phase.name, phase.workload) === value;
      case 'method':
        return planStep.step.method === value;
      case 'client':
        return true;
      default:
        return planStep.step.tags[key] === value;
    }
  });
}

/** The requests `selector` picks in `plan`; a client it names that the plan lacks picks nothing. */
export function selectionOf(plan: Plan, selector: readonly SelectorTerm[]): Selection {
  const steps = planSteps(plan);
  const clientTerm = selector.find((t) => t.key === 'client');
  const client = clientTerm === undefined ? null : plan.clients.findIndex((c) => c.id === clientTerm.value);
  // A client this plan (or this part of a split run) lacks: nothing here is picked.
  if (client === -1) return { cells: [], client: null };
  const cells: number[] = [];
  plan.phases.forEach((phase, p) => {
    const workload = plan.workloads[phase.workload]!;
    if (client !== null && !workload.clients.some((c) => c.index === client)) return;
    steps.forEach((planStep, t) => {
      if (cellMatches(plan, p, planStep, selector)) cells.push(p * steps.length + t);
    });
  });
  return { cells, client };
}

/** The values a plan has for a selector key (for a problem naming what would have matched). */
function knownValues(plan: Plan, key: string): string[] {
  const steps = planSteps(plan);
  switch (key) {
    case 'workload':
      return plan.workloads.map((w) => w.name);
    case 'scenario':
      return plan.scenarios.map((s) => s.name);
    case 'phase':
      return [...new Set(plan.phases.flatMap((p) => [ownName(plan, p.name, p.workload), p.name]))];
    case 'method':
      return [...new Set(steps.map((s) => s.step.method))];
    case 'client':
      return plan.clients.map((c) => c.id);
    default:
      return [...new Set(steps.flatMap((s) => (s.step.tags[key] === undefined ? [] : [s.step.tags[key]])))];
  }
}

const listed = (values: readonly string[]): string => {
  if (values.length === 0) return 'none';
  const shown = values.slice(0, 8).join(', ');
  return values.length > 8 ? `${shown}, … (${values.length})` : shown;
};

/**
 * The thresholds whose selector picks no request of the plan, each a problem at `pointerOf(i)`
 * naming the key whose value is unknown and the values the plan has (or, when every value is known
 * but they never meet, saying so). While a replay workload's recording is unscanned its methods are
 * unknown: `replayPending` leaves method, scenario and tag values unjudged.
 */
export function selectorProblems(
  plan: Plan,
  thresholds: readonly ParsedThreshold[],
  pointerOf: (index: number) => string,
  replayPending = plan.workloads.some((w) => w.replaySettings !== undefined && w.replay === undefined),
): Problem[] {
  const problems: Problem[] = [];
  const tagKeys = new Set(planSteps(plan).flatMap((s) => Object.keys(s.step.tags)));
  thresholds.forEach((threshold, index) => {
    if (threshold.selector.length === 0) return;
    for (const { key, value } of threshold.selector) {
      const isTag = !(SELECTOR_KEYS as readonly string[]).includes(key);
      if (isTag && !tagKeys.has(key) && !replayPending) {
        problems.push({
          path: pointerOf(index),
          message: `expected a selector key (${SELECTOR_KEYS.join(', ')} or a step tag: ${listed([...tagKeys])}), found "${key}" in ${JSON.stringify(threshold.expr)}`,
        });
        return;
      }
      const deferred = replayPending && (key === 'method' || key === 'scenario' || isTag);
      const known = knownValues(plan, key);
      if (!deferred && !known.includes(value)) {
        problems.push({
          path: pointerOf(index),
          message: `expected a ${isTag ? `value of tag "${key}"` : key} the plan has (${listed(known)}), found "${value}" in ${JSON.stringify(threshold.expr)}`,
        });
        return;
      }
    }
    if (replayPending) return;
    const { cells } = selectionOf(plan, threshold.selector);
    if (cells.length === 0)
      problems.push({
        path: pointerOf(index),
        message: `expected a selector that picks some request, found ${JSON.stringify(threshold.expr)}: no request of the plan has all of ${threshold.selectorKey}`,
      });
  });
  return problems;
}
