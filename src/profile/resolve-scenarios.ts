/**
 * Resolve the `scenarios` value: default names and weights, steps with compiled body templates,
 * pagination and think time. Works on the raw value so that every step that passed the schema is
 * checked, whatever is wrong elsewhere (that is reported by the schema).
 */
import { isMethodName, METHOD_NAME_EXPECTED } from '../api/http-call.ts';
import type { ScenarioPlan, StepPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { ScenarioSchema, StepSchema, type StepSettings } from './profile-schema.ts';
import { expected, uniqueNames, type Problem } from './problems.ts';
import { expectProblems, FlowReferences, resolveExpect, resolveSaves, resolveThink } from './resolve-flows.ts';
import { tryCompileBodyTemplate } from './template.ts';
import { isRecord, validFields } from './valid-fields.ts';

/**
 * `dataSets`: the names the profile's `data` section declares; `columns` is filled with the
 * columns each set's templates name.
 */
export function resolveScenarios(
  scenarios: unknown,
  tokenMethod: string,
  problems: Problem[],
  dataSets: ReadonlySet<string> = new Set(),
  columns = new Map<string, Set<string>>(),
  setupSaves: readonly string[] = [],
): ScenarioPlan[] {
  const resolved: ScenarioPlan[] = [];
  const checkName = uniqueNames('scenario', problems);
  const references = new FlowReferences(dataSets, columns, problems, setupSaves);
  (Array.isArray(scenarios) ? scenarios : []).forEach((scenario: unknown, index) => {
    const pointer = `/scenarios/${index}`;
    const fields = validFields(ScenarioSchema, scenario);
    const name = fields.name ?? `scenario-${index + 1}`;
    checkName(name, index, pointer, fields.name !== undefined);
    const rawSteps = isRecord(scenario) && Array.isArray(scenario.steps) ? (scenario.steps as unknown[]) : [];
    references.startScenario();
    const steps = rawSteps.map((step, stepIndex) =>
      resolveStep(validFields(StepSchema, step), `${pointer}/steps/${stepIndex}`, tokenMethod, problems, references),
    );
    resolved.push({ name, weight: fields.weight ?? D.scenario.weight, steps });
  });
  return resolved;
}

/** One step of a scenario (or of setup/teardown), checked and resolved; `references` follows the saves of its sequence. */
export function resolveStep(
  step: Partial<StepSettings>,
  pointer: string,
  tokenMethod: string,
  problems: Problem[],
  references: FlowReferences,
): StepPlan {
  if (step.method !== undefined && !isMethodName(step.method))
    problems.push(expected(`${pointer}/method`, METHOD_NAME_EXPECTED, step.method));
  else if (step.method === tokenMethod) {
    problems.push(
      expected(
        `${pointer}/method`,
        `an API method (the driver makes the token request "${tokenMethod}" itself)`,
        step.method,
      ),
    );
  }
  const args = step.args ?? {};
  const paginate =
    step.paginate === true
      ? { maxPages: D.step.maxPages }
      : step.paginate
        ? { maxPages: step.paginate.maxPages ?? D.step.maxPages }
        : null;
  // The walk sends the first page without `next` and adds the cursor itself.
  if (paginate && 'next' in args)
    problems.push(
      expected(`${pointer}/args/next`, 'no "next" in the args of a paginated step (the walk sets it)', args.next),
    );
  const compiled = tryCompileBodyTemplate(args, `${pointer}/args`);
  problems.push(...compiled.problems);
  const save = resolveSaves(step.save, `${pointer}/save`, problems);
  references.step(compiled.references, save);
  problems.push(...expectProblems(step.expect, `${pointer}/expect`));
  const expectsError = step.expect !== undefined && (step.expect.status === 'error' || step.expect.error !== undefined);
  if (expectsError && save.length > 0)
    problems.push({
      path: `${pointer}/save`,
      message: 'expected no save beside an expected error (an error reply has no data to save from)',
    });
  return {
    // Without a valid method there is a schema problem, and a plan is never built from those.
    method: step.method ?? '',
    body: { source: structuredClone(args), variability: compiled.template?.variability ?? 'static' },
    paginate,
    think: resolveThink(step.think, `${pointer}/think`, problems),
    save,
    expect: resolveExpect(step.expect),
    onFail: step.onFail ?? D.step.onFail,
    tags: { ...(step.tags ?? {}) },
  };
}
