/**
 * Flows: what a step's reply means for the rest of its iteration. Judges the step's expectation
 * (`expect`), keeps the values it saves (`save`) in the iteration's variables, and says whether
 * the iteration goes on; a failed expectation or a missing value rewrites the request's outcome
 * key (`expect:<what>`, `flow:missing_value`). Pure functions over the plan's step and the judged
 * reply, so each case is a row of a table test. Steps without `expect` or `save` take the first
 * line of `judgeFlow` and nothing else.
 */
import { OUTCOME_RATE_LIMITED, OUTCOME_SUCCESS } from '../api/outcome.ts';
import type { ExpectPlan, StepPlan, ThinkPlan } from '../profile/plan.ts';
import type { RequestOutcome } from './request-outcome.ts';

/** A save whose path the reply lacks (or a value a body names and the iteration lacks) ends the iteration with this outcome. */
export const OUTCOME_MISSING_VALUE = 'flow:missing_value';
const ERROR_PREFIX = 'error:';

/** The value at `segments` under `data` (own properties and array indices only); undefined when absent. */
export function readPath(data: unknown, segments: readonly (string | number)[]): unknown {
  let node = data;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(node) || segment >= node.length) return undefined;
      node = node[segment] as unknown;
    } else {
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, segment))
        return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
  }
  return node;
}

/**
 * Where `actual` first fails to contain `expected` (objects by key, arrays by position, other
 * values by equality), as a path below `path` (`data.items[0].sku`); null when it contains it.
 */
export function subsetMismatch(expected: unknown, actual: unknown, path: string): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return path;
    for (let i = 0; i < expected.length; i++) {
      const miss = subsetMismatch(expected[i], actual[i], `${path}[${i}]`);
      if (miss !== null) return miss;
    }
    return null;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return path;
    for (const [key, value] of Object.entries(expected)) {
      const has = Object.hasOwn(actual, key);
      const miss = subsetMismatch(value, has ? (actual as Record<string, unknown>)[key] : undefined, `${path}.${key}`);
      if (miss !== null) return miss;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : path;
}

/** The outcome key of the first part of `expect` the reply fails (`expect:status`, `expect:error`, `expect:data.state`); null when it holds. */
export function expectationFailure(
  expect: ExpectPlan,
  outcome: string,
  data: Readonly<Record<string, unknown>> | null,
): string | null {
  if (expect.status === 'success' && outcome !== OUTCOME_SUCCESS) return 'expect:status';
  if (expect.status === 'error' && !outcome.startsWith(ERROR_PREFIX)) return 'expect:status';
  if (expect.error !== null && outcome !== ERROR_PREFIX + expect.error) return 'expect:error';
  if (expect.data !== null) {
    const miss = subsetMismatch(expect.data, data, 'data');
    if (miss !== null) return `expect:${miss}`;
  }
  return null;
}

/**
 * Whether a reply's outcome may be replaced by a flow outcome: a success or an error envelope. A
 * 429 stays a 429 (the rate-limit figures count it), and a transport, HTTP or envelope failure
 * stays what it was.
 */
function isFlowJudged(outcome: string): boolean {
  return outcome === OUTCOME_SUCCESS || (outcome.startsWith(ERROR_PREFIX) && outcome !== OUTCOME_RATE_LIMITED);
}

/**
 * Judge a finished request of `step` (its outcome already judged into `outcome`): check its
 * expectation, save its values into `vars`, and rewrite the outcome key when either fails.
 * Returns whether the iteration goes on to its next request.
 */
export function judgeFlow(step: StepPlan, outcome: RequestOutcome, vars: Record<string, unknown> | null): boolean {
  const data = outcome.successData;
  if (step.expect === null && step.save.length === 0) return data !== null;
  const original = outcome.outcome;
  if (step.expect === null) {
    if (data === null) return false;
  } else {
    const failure = expectationFailure(step.expect, original, data);
    if (failure !== null) {
      if (!isFlowJudged(original)) return false;
      outcome.outcome = failure;
      outcome.detail = `${step.method}: ${failure.slice('expect:'.length)} is not as expected (reply: ${original})`;
      if (step.onFail === 'stop') return false;
    }
  }
  for (const save of step.save) {
    const value = readPath(data, save.segments);
    if (value === undefined) {
      if (outcome.outcome === original && isFlowJudged(original)) {
        outcome.outcome = OUTCOME_MISSING_VALUE;
        outcome.detail = `${step.method}: the reply has no data.${save.path} (to save as ${save.name})`;
      }
      return false;
    }
    vars![save.name] = value;
  }
  return true;
}

/** A pause drawn from `think` (ms), with `random` uniform in [0, 1). */
export function thinkTimeMs(think: ThinkPlan, random: () => number): number {
  switch (think.kind) {
    case 'fixed':
      return think.ms;
    case 'uniform':
      return think.minMs + random() * (think.maxMs - think.minMs);
    case 'exponential':
      // 1 − random is in (0, 1]: the logarithm is finite (log1p keeps a zero draw at +0).
      return think.meanMs * -Math.log1p(-random());
  }
}
