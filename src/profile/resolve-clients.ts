/**
 * Resolves a profile's `clients` (a list or an ID pattern) into client identities with
 * their secrets, weights and credentials (certificates, signing keys, signing secrets).
 */
import { infeasibleClientCount } from './feasibility.ts';
import type { ClientPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { readSecretsFile } from './profile-files.ts';
import type { ClientsSettings } from './profile-schema.ts';
import { childPointer, expected, type Problem } from './problems.ts';
import { pointerOf, withCredentials, type CredentialContext } from './resolve-client-credentials.ts';

export interface ClientsContext extends CredentialContext {
  /**
   * Every client needs a real secret: an external target authenticating clients by secret (not
   * private_key_jwt). The embedded server takes random ones.
   */
  readonly external: boolean;
  /** Directory the secrets file is relative to. */
  readonly baseDir: string;
  /** `--clients N`: pattern → count N; list → the first N. */
  readonly count?: number;
}

/**
 * A random per-run secret for a client of the embedded server. node:crypto loads with the first
 * one: ~8 ms that a profile with its own secrets never pays.
 */
const randomSecret = (): string => process.getBuiltinModule('node:crypto').randomBytes(18).toString('base64url');

const NO_SECRET_HINT = 'a secret for a client of an external target ("secret": "${ENV_VAR}" or clients.secretsFile)';

/**
 * Expand `clients` into identities. Secret precedence: the client's own `secret` (list form),
 * then the secrets file, then the pattern's shared `secret`; empty counts as none. Problems go to
 * `problems`; the returned list is then incomplete and must not be used.
 */
export function resolveClients(settings: ClientsSettings, context: ClientsContext, problems: Problem[]): ClientPlan[] {
  let fileSecrets: ReadonlyMap<string, string> = new Map();
  if (settings.secretsFile !== undefined) {
    const read = readSecretsFile(context.baseDir, settings.secretsFile);
    if (read.ok) fileSecrets = read.value;
    else
      problems.push({
        path: `${pointerOf(context)}/secretsFile`,
        message: `expected a readable JSON object of client id → secret, found ${read.reason}`,
      });
  }
  const secretOf = (id: string, own: string | undefined): string | undefined => own || fileSecrets.get(id);
  if ('list' in settings) {
    const clients = fromList(settings, context, secretOf, problems);
    return withCredentials(clients, (i) => settings.list[i], settings, undefined, context, problems);
  }
  const clients = fromPattern(settings, context, secretOf, problems);
  return withCredentials(clients, () => undefined, settings, settings.signingSecret, context, problems);
}

type SecretLookup = (id: string, own: string | undefined) => string | undefined;

type BaseClient = Pick<ClientPlan, 'id' | 'secret' | 'weight'>;

function fromList(
  settings: Extract<ClientsSettings, { list: unknown }>,
  context: ClientsContext,
  secretOf: SecretLookup,
  problems: Problem[],
): BaseClient[] {
  const firstIndex = new Map<string, number>();
  settings.list.forEach((entry, index) => {
    const earlier = firstIndex.get(entry.id);
    if (earlier === undefined) firstIndex.set(entry.id, index);
    else
      problems.push(
        expected(
          `${pointerOf(context)}/list/${index}/id`,
          `a unique client id (this one is also ${pointerOf(context)}/list/${earlier}/id)`,
          entry.id,
        ),
      );
  });
  if (context.count !== undefined && context.count > settings.list.length) {
    problems.push({
      path: '--clients',
      message: `expected at most ${settings.list.length} (the profile lists ${settings.list.length} clients), found ${context.count}`,
    });
  }
  return settings.list.slice(0, context.count).map((entry, index) => {
    const secret = secretOf(entry.id, entry.secret);
    if (!secret && context.external)
      problems.push({
        path: `${pointerOf(context)}/list/${index}/secret`,
        message: `expected ${NO_SECRET_HINT}, found none for ${JSON.stringify(entry.id)}`,
      });
    return { id: entry.id, secret: secret ?? randomSecret(), weight: entry.weight ?? D.clients.weight };
  });
}

function fromPattern(
  settings: Exclude<ClientsSettings, { list: unknown }>,
  context: ClientsContext,
  secretOf: SecretLookup,
  problems: Problem[],
): BaseClient[] {
  const pattern = settings.pattern ?? D.clients.pattern;
  if (!pattern.includes('{n}'))
    problems.push(expected(`${pointerOf(context)}/pattern`, 'a client id pattern containing {n}', pattern));
  const start = settings.start ?? D.clients.start;
  const declaredCount = settings.count ?? D.clients.count;
  // Before a single client is built: ten million of them took minutes and gigabytes.
  const tooMany = infeasibleClientCount(
    context.count ?? declaredCount,
    context.count === undefined ? `${pointerOf(context)}/count` : '--clients',
  );
  if (tooMany !== null) {
    problems.push(tooMany);
    return [];
  }
  const idAt = (offset: number): string => pattern.replaceAll('{n}', String(start + offset));
  const weights = settings.weights ?? {};
  // Weights naming ids the pattern does not make are typos; after --clients they are simply dropped.
  if (context.count === undefined) {
    const ids = new Set(Array.from({ length: declaredCount }, (_, offset) => idAt(offset)));
    const range = `${idAt(0)} … ${idAt(declaredCount - 1)}`;
    for (const id of Object.keys(weights)) {
      if (!ids.has(id))
        problems.push(
          expected(childPointer(`${pointerOf(context)}/weights`, id), `a client id the pattern makes (${range})`, id),
        );
    }
  }
  const clients = Array.from({ length: context.count ?? declaredCount }, (_, offset): BaseClient => {
    const id = idAt(offset);
    return { id, secret: secretOf(id, undefined) || settings.secret || '', weight: weights[id] ?? D.clients.weight };
  });
  const missing = clients.filter((client) => client.secret === '');
  if (missing.length > 0 && context.external) {
    const names =
      missing
        .slice(0, 3)
        .map((client) => client.id)
        .join(', ') + (missing.length > 3 ? ` … (${missing.length} clients)` : '');
    problems.push({
      path: `${pointerOf(context)}/secret`,
      message: `expected ${NO_SECRET_HINT}, found none for ${names}`,
    });
  }
  return clients.map((client) => (client.secret === '' ? { ...client, secret: randomSecret() } : client));
}
