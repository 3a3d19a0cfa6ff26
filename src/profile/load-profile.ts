/**
 * Profiles from disk: a profile file read, interpolated and validated, or loaded straight into a
 * Plan; and the bundled demo profile's path.
 */
import { readFile } from 'node:fs/promises';
import { describeError, RpcloadError } from '../errors.ts';
import { packageFile } from '../package-files.ts';
import { MAX_JSON_DEPTH, tooDeepAt } from '../util/json-depth.ts';
import { locateJsonError } from '../util/json-error-position.ts';
import { buildPlan, resolvePlan, type PlanOverrides } from './build-plan.ts';
import { interpolateEnv } from './interpolate.ts';
import type { Plan } from './plan.ts';
import { DEFAULT_PROFILE } from './profile-defaults.ts';
import type { Profile } from './profile-schema.ts';
import { fileErrorReason } from './profile-files.ts';
import { inDocumentOrder, ProfileError } from './problems.ts';

/**
 * Read, parse, interpolate `${VAR}` and validate a profile file. Failures are RpcloadErrors
 * (exit 2): an unreadable file or a JSON syntax error as one line (`file: line L, column C: …`),
 * otherwise a ProfileError listing every problem, one line each.
 */
export async function loadProfile(
  path: string,
  env: NodeJS.ProcessEnv = process.env,
  /** `--replay FILE`: the profile then needs no scenarios or phases of its own. */
  replay?: string,
): Promise<Profile> {
  const { value } = await readProfileDocument(path);
  const interpolated = interpolateEnv(value, env);
  // A value left uninterpolated is reported once, as the missing variable, not again as invalid.
  const unresolved = new Set(interpolated.problems.map((problem) => problem.path));
  const problems = [
    ...interpolated.problems,
    ...resolvePlan(interpolated.value, { source: path, overrides: { replay } }).problems.filter(
      (p) => !unresolved.has(p.path),
    ),
  ];
  if (problems.length > 0) throw new ProfileError(path, inDocumentOrder(interpolated.value, problems));
  return interpolated.value as Profile;
}

/**
 * A profile file's text and its JSON, neither interpolated nor validated: for what needs only a
 * part of a profile without its secrets (merge's thresholds, deploy's manifests). Unreadable
 * files and syntax errors are one-line RpcloadErrors, as in loadProfile.
 */
export async function readProfileDocument(path: string): Promise<{ text: string; value: unknown }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RpcloadError('bad_profile', `${path}: cannot read the profile (${fileErrorReason(err)})`);
  }
  return { text, value: parseProfileText(path, text) };
}

function parseProfileText(path: string, text: string): unknown {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text; // editors on Windows add a BOM
  let value: unknown;
  try {
    value = JSON.parse(body) as unknown;
  } catch (err) {
    // V8's messages carry no line/column (and on Node 20 often no position at all).
    const at = locateJsonError(body);
    throw new RpcloadError(
      'bad_profile',
      at ? `${path}: line ${at.line}, column ${at.column}: ${at.reason}` : `${path}: ${describeError(err)}`,
    );
  }
  // Before any recursive walk (interpolation, validation) can overflow the stack.
  const deep = tooDeepAt(value);
  if (deep !== null)
    throw new RpcloadError(
      'bad_profile',
      `${path}: ${deep}: nested deeper than ${MAX_JSON_DEPTH} levels; expected a profile`,
    );
  return value;
}

/** loadProfile, then buildPlan with the `rpcload run` flags. */
export async function loadPlan(
  path: string,
  overrides?: PlanOverrides,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Plan> {
  return buildPlan(await loadProfile(path, env, overrides?.replay), { source: path, overrides });
}

/** Absolute path of profiles/demo.json in the package (the same from src/ and dist/). */
export function defaultProfilePath(): string {
  return packageFile(DEFAULT_PROFILE);
}
