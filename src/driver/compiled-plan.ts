/**
 * The plan's scenarios prepared for the hot path: body templates compiled, method indices resolved,
 * request paths built, and bodies rendered once where they cannot change (static bodies once per
 * run, client-only templates once per client), so no request re-serializes the same JSON.
 */
import type { Plan, ScenarioPlan, StepPlan, TemplateContext, WorkloadPlan } from '../profile/plan.ts';
import { compileBodyTemplate, tryCompileBodyTemplate } from '../profile/template.ts';

export interface CompiledStep {
  readonly plan: StepPlan;
  readonly methodIndex: number;
  /** Its index in the plan's flattened step list (profile/selection.ts planSteps): the recorder's cell. */
  readonly stepIndex: number;
  /** Request path on each route (the target, or each replica), with its base path, e.g. /v1/api/items.list. */
  readonly paths: readonly string[];
  /** Render (or reuse) this step's body for a client. */
  body(clientIndex: number, ctx: () => TemplateContext): { readonly text: string; readonly bytes: Buffer };
}

export interface CompiledScenario {
  readonly name: string;
  readonly steps: readonly CompiledStep[];
  /** Some step saves values (its iterations carry variables). */
  readonly saves: boolean;
  /** Indices (into the plan's `data`) of the data sets its steps read: each iteration takes a row of each. */
  readonly dataSets: readonly number[];
}

export interface CompiledPlan {
  readonly methods: readonly string[];
  readonly scenarios: readonly CompiledScenario[];
  readonly workloads: readonly CompiledWorkload[];
  /** The workload of each of the plan's phases. */
  readonly phaseWorkload: readonly number[];
}

/** A workload ready for the hot path: its clients and scenarios, and their weights for a pick. */
export interface CompiledWorkload {
  readonly name: string;
  /** Its clients' indexes in the plan's (and the engine's) client list. */
  readonly clients: readonly number[];
  /** Their weights here, in the same order (the client picker's round-robin state is made from them). */
  readonly clientWeights: readonly number[];
  /** Its scenarios' indexes in the plan's list. */
  readonly scenarios: readonly number[];
  /** Cumulative scenario weights, for a weighted pick with one random number (an empty array: a replay's calls name theirs). */
  readonly cumulativeWeights: Float64Array;
}

/** The distinct methods of a plan, in order of first appearance: the recorder's method dimension. */
export function planMethods(plan: Plan): string[] {
  const methods: string[] = [];
  for (const scenario of plan.scenarios)
    for (const step of scenario.steps) if (!methods.includes(step.method)) methods.push(step.method);
  return methods;
}

function compileStep(
  step: StepPlan,
  methodIndex: number,
  stepIndex: number,
  basePaths: readonly string[],
  clientCount: number,
): CompiledStep {
  const paths = basePaths.map((basePath) => `${basePath}/api/${step.method}`);
  const template = compileBodyTemplate(step.body.source);
  const render = (ctx: () => TemplateContext): { text: string; bytes: Buffer } => {
    const text = template.render(ctx());
    return { text, bytes: Buffer.from(text) };
  };
  if (step.body.variability === 'static') {
    let cached: { text: string; bytes: Buffer } | undefined;
    return { plan: step, methodIndex, stepIndex, paths, body: (_client, ctx) => (cached ??= render(ctx)) };
  }
  if (step.body.variability === 'client') {
    const perClient: ({ text: string; bytes: Buffer } | undefined)[] = new Array<undefined>(clientCount);
    return { plan: step, methodIndex, stepIndex, paths, body: (client, ctx) => (perClient[client] ??= render(ctx)) };
  }
  return { plan: step, methodIndex, stepIndex, paths, body: (_client, ctx) => render(ctx) };
}

/** The plan compiled for its routes' base paths (the target's alone, or each replica's). */
export function compilePlan(plan: Plan, basePaths: readonly string[]): CompiledPlan {
  const methods = planMethods(plan);
  let stepIndex = 0;
  const scenarios = plan.scenarios.map((scenario: ScenarioPlan) => ({
    name: scenario.name,
    steps: scenario.steps.map((step) =>
      compileStep(step, methods.indexOf(step.method), stepIndex++, basePaths, plan.clients.length),
    ),
    saves: scenario.steps.some((step) => step.save.length > 0),
    dataSets: dataSetsRead(plan, scenario),
  }));
  const workloads = plan.workloads.map((workload: WorkloadPlan): CompiledWorkload => {
    const cumulativeWeights = new Float64Array(workload.scenarios.length);
    let total = 0;
    workload.scenarios.forEach((scenario, i) => (cumulativeWeights[i] = total += scenario.weight));
    return {
      name: workload.name,
      clients: workload.clients.map((c) => c.index),
      clientWeights: workload.clients.map((c) => c.weight),
      scenarios: workload.scenarios.map((s) => s.index),
      cumulativeWeights,
    };
  });
  return { methods, scenarios, workloads, phaseWorkload: plan.phases.map((phase) => phase.workload) };
}

/** The data sets whose `{{data.SET.…}}` a scenario's args name, as indices into the plan's `data`. */
function dataSetsRead(plan: Plan, scenario: ScenarioPlan): number[] {
  if (plan.data.length === 0) return [];
  const read = new Set<string>();
  for (const step of scenario.steps)
    for (const ref of tryCompileBodyTemplate(step.body.source).references) if (ref.kind === 'data') read.add(ref.set);
  return plan.data.flatMap((set, index) => (read.has(set.name) ? [index] : []));
}

/** Weighted pick: the index whose cumulative weight first exceeds random × total. */
export function pickScenario(cumulativeWeights: Float64Array, random: number): number {
  const target = random * cumulativeWeights[cumulativeWeights.length - 1]!;
  for (let i = 0; i < cumulativeWeights.length; i++) if (target < cumulativeWeights[i]!) return i;
  return cumulativeWeights.length - 1;
}
