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
import { ALLOW_ZERO, durationMs } from './resolve-durations.ts';
import { tryCompileBodyTemplate } from './template.ts';
import { isRecord, validFields } from './valid-fields.ts';

export function resolveScenarios(scenarios: unknown, tokenMethod: string, problems: Problem[]): ScenarioPlan[] {
  const resolved: ScenarioPlan[] = [];
  const checkName = uniqueNames('scenario', problems);
  (Array.isArray(scenarios) ? scenarios : []).forEach((scenario: unknown, index) => {
    const pointer = `/scenarios/${index}`;
    const fields = validFields(ScenarioSchema, scenario);
    const name = fields.name ?? `scenario-${index + 1}`;
    checkName(name, index, pointer, fields.name !== undefined);
    const rawSteps = isRecord(scenario) && Array.isArray(scenario.steps) ? (scenario.steps as unknown[]) : [];
    const steps = rawSteps.map((step, stepIndex) =>
      resolveStep(validFields(StepSchema, step), `${pointer}/steps/${stepIndex}`, tokenMethod, problems),
    );
    resolved.push({ name, weight: fields.weight ?? D.scenario.weight, steps });
  });
  return resolved;
}

function resolveStep(step: Partial<StepSettings>, pointer: string, tokenMethod: string, problems: Problem[]): StepPlan {
  if (step.method !== undefined && !isMethodName(step.method))
    problems.push(expected(`${pointer}/method`, METHOD_NAME_EXPECTED, step.method));
  else if (step.method === tokenMethod) {
    problems.push(expected(`${pointer}/method`, `an API method (the driver makes the token request "${tokenMethod}" itself)`, step.method));
  }
  const args = step.args ?? {};
  const paginate =
    step.paginate === true ? { maxPages: D.step.maxPages } : step.paginate ? { maxPages: step.paginate.maxPages ?? D.step.maxPages } : null;
  // The walk sends the first page without `next` and adds the cursor itself.
  if (paginate && 'next' in args)
    problems.push(expected(`${pointer}/args/next`, 'no "next" in the args of a paginated step (the walk sets it)', args.next));
  const compiled = tryCompileBodyTemplate(args, `${pointer}/args`);
  problems.push(...compiled.problems);
  return {
    // Without a valid method there is a schema problem, and a plan is never built from those.
    method: step.method ?? '',
    body: { source: structuredClone(args), variability: compiled.template?.variability ?? 'static' },
    paginate,
    thinkMs: durationMs(step.think ?? D.step.think, `${pointer}/think`, problems, ALLOW_ZERO),
  };
}
