/**
 * Resolves a profile's `setup` and `teardown`: steps run once, outside the load, by one client.
 * Setup's saved values become `{{setup.NAME}}` everywhere a template is allowed (checked here and
 * by the scenarios' resolution); teardown reads them too. Which client runs them is settled once
 * the plan's clients are known (setupClient): a configured ID, or a new one with the top-level
 * clients' secret.
 */
import type { ClientPlan, StepPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { SetupSchema, StepSchema, type ClientsSettings } from './profile-schema.ts';
import { expected, type Problem } from './problems.ts';
import { durationMs, POSITIVE } from './resolve-durations.ts';
import { FlowReferences } from './resolve-flows.ts';
import { resolveStep } from './resolve-scenarios.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** Setup or teardown as resolved before its client is settled. */
export interface ResolvedSteps {
  readonly which: 'setup' | 'teardown';
  readonly steps: StepPlan[];
  readonly timeoutMs: number;
  /** The client ID it names; undefined = the plan's first client. */
  readonly clientId: string | undefined;
  /** What its steps save, in order. */
  readonly saves: string[];
}

/**
 * The `setup` or `teardown` section; null when absent. `setupSaves` is what setup saves, which a
 * teardown may read as `{{setup.NAME}}` (null for setup itself, whose own steps pass values on as
 * `{{vars.NAME}}`). Data sets are not read outside the load.
 */
export function resolveSteps(
  which: 'setup' | 'teardown',
  value: unknown,
  tokenMethod: string,
  setupSaves: readonly string[] | null,
  problems: Problem[],
): ResolvedSteps | null {
  if (value === undefined) return null;
  const fields = validFields(SetupSchema, value);
  const rawSteps = isRecord(value) && Array.isArray(value.steps) ? (value.steps as unknown[]) : [];
  const references = new FlowReferences(new Set(), new Map(), problems, setupSaves);
  const steps = rawSteps.map((step, index) =>
    resolveStep(validFields(StepSchema, step), `/${which}/steps/${index}`, tokenMethod, problems, references),
  );
  return {
    which,
    steps,
    timeoutMs: durationMs(fields.timeout ?? D.setup.timeout, `/${which}/timeout`, problems, POSITIVE),
    clientId: fields.client,
    saves: [...new Set(steps.flatMap((step) => step.save.map((save) => save.name)))],
  };
}

/**
 * The index of the client that runs setup or teardown in `clients`: the one it names, the first by
 * default, or a new identity (appended) with the top-level clients' shared secret.
 */
export function setupClient(
  resolved: ResolvedSteps,
  clients: ClientPlan[],
  settings: ClientsSettings,
  problems: Problem[],
): number {
  const id = resolved.clientId ?? clients[0]?.id;
  if (id === undefined) return 0;
  const index = clients.findIndex((client) => client.id === id);
  if (index >= 0) return index;
  const secret = 'secret' in settings ? settings.secret : undefined;
  if (secret === undefined || secret === '') {
    problems.push(
      expected(
        `/${resolved.which}/client`,
        'a configured client ID, or a top-level clients block with a shared "secret" (a new ID gets that secret)',
        id,
      ),
    );
    return 0;
  }
  clients.push({ id, secret, weight: D.clients.weight, tls: null, assertionKey: null, signingSecret: secret });
  return clients.length - 1;
}
