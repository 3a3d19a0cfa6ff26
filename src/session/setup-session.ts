/**
 * Setup and teardown on their own, for a run split into shards (a CI matrix, a Kubernetes Indexed
 * Job): `rpcload setup` runs setup once and writes its values to a file, every shard runs with
 * `--setup-values FILE` (skipping setup), and `rpcload teardown` runs teardown once with the same
 * file. The file holds the profile's name and the values setup saved — never a token or secret.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { SetupRecord } from '../contract/result-schema.ts';
import { RpcloadError } from '../errors.ts';
import type { Plan } from '../profile/plan.ts';
import { runSetupSteps, type SetupOutcome, type SetupValuesFile } from './setup-run.ts';
import { aimedAt, openTarget } from './target.ts';

/** The values file's format. */
export const SETUP_VALUES_SCHEMA = 'rpcload/setup-values@1';

/** Run the plan's setup or teardown alone against its target (teardown with `values`). */
export async function setupStepsSession(
  plan: Plan,
  which: 'setup' | 'teardown',
  values: Readonly<Record<string, unknown>> | null,
  signal: AbortSignal,
): Promise<SetupOutcome> {
  if ((which === 'setup' ? plan.setup : plan.teardown) === null)
    throw new RpcloadError('bad_profile', `${plan.source || plan.name}: the profile has no ${which} section`);
  const target = await openTarget(plan);
  try {
    return await runSetupSteps(aimedAt(plan, target), which, values, signal);
  } finally {
    await target.close();
  }
}

/** Write setup's values where `rpcload setup --out` says. */
export async function writeSetupValues(
  path: string,
  plan: Plan,
  record: SetupRecord,
  values: Readonly<Record<string, unknown>>,
): Promise<void> {
  const file = { schema: SETUP_VALUES_SCHEMA, profile: plan.name, client: record.client, values };
  try {
    await writeFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  } catch (err) {
    throw new RpcloadError(
      'write_failed',
      `${path}: cannot write the setup values: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
}

/**
 * Read `--setup-values FILE`: a file `rpcload setup` wrote for this profile, holding every value
 * the profile's templates read as `{{setup.NAME}}`. Anything else is one line, exit 2.
 */
export async function readSetupValues(path: string, plan: Plan): Promise<SetupValuesFile> {
  const fail = (what: string): never => {
    throw new RpcloadError('bad_flag', `--setup-values: ${path}: ${what}`);
  };
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    fail(`cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('expected the JSON file `rpcload setup --out` writes, found text that is not JSON');
  }
  const file = parsed as { schema?: unknown; values?: unknown };
  if (file === null || typeof file !== 'object' || file.schema !== SETUP_VALUES_SCHEMA)
    fail(`expected "schema": "${SETUP_VALUES_SCHEMA}" (the file \`rpcload setup --out\` writes)`);
  if (file.values === null || typeof file.values !== 'object' || Array.isArray(file.values))
    fail('expected "values" to be an object');
  const values = file.values as Record<string, unknown>;
  if (plan.setup === null) fail('the profile has no setup section, so it reads no setup values');
  const missing = plan.setup!.saves.filter((name) => !Object.hasOwn(values, name));
  if (missing.length > 0)
    fail(`expected a value for ${missing.map((n) => `{{setup.${n}}}`).join(', ')} (what the profile's setup saves)`);
  return { file: path, values };
}
