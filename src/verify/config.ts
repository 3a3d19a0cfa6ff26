/**
 * The verify run's configuration: `rpcload verify` flags parsed, then resolved over a
 * profile's plan and the defaults.
 */
import { isMethodName, METHOD_NAME_EXPECTED } from '../api/http-call.ts';
import type { AssertionKey } from '../api/client-assertion.ts';
import type { ClientTlsIdentity, HttpVersion } from '../api/dispatcher.ts';
import type { ClientAuthMethod } from '../api/token.ts';
import { RpcloadError } from '../errors.ts';
import type { Plan } from '../profile/plan.ts';
import {
  clientsFromFlags,
  parseClientFlag,
  parsePaginatedFlag,
  type FlagClient,
  type PaginatedMethod,
} from '../profile/client-flags.ts';
import { PROFILE_DEFAULTS } from '../profile/profile-defaults.ts';
import { parseDurationMs } from '../util/duration.ts';
import { CHECK_IDS, isCheckId, type CheckId } from './check-ids.ts';
import { parseAllowSkipFlag, type AllowedSkips } from './skip-policy.ts';

/** A client ID with its secret (the secret never leaves the token request) and its other credentials. */
export interface VerifyClient extends FlagClient {
  /** Its own certificate (mTLS); null = the common one, if any. */
  readonly tls: ClientTlsIdentity | null;
  /** private_key_jwt: its signing key. */
  readonly assertionKey: AssertionKey | null;
  /** Handed to the sign module with its requests. */
  readonly signingSecret: string;
}
export type { PaginatedMethod };
// Parsed where `rpcload run` parses them too (a profile built from flags).
export { parseClientFlag, parsePaginatedFlag };

/** Everything a verify run needs, resolved from flags and/or a profile; nothing optional. */
export interface VerifyConfig {
  /** Base URL without a trailing slash. */
  readonly target: string;
  readonly tokenMethod: string;
  readonly clientAuth: ClientAuthMethod;
  readonly scope: string | null;
  readonly extraFields: Readonly<Record<string, string>>;
  readonly clients: readonly VerifyClient[];
  /** Methods to call; the first is the cheap probe method that bursts spend quota on. */
  readonly methods: readonly string[];
  readonly paginated: readonly PaginatedMethod[];
  /** The contract under test: `limit` requests per `windowMs`, per client ID. */
  readonly limit: number;
  readonly windowMs: number;
  /** Pinned payload limit in bytes; null = either reading of 100 KB passes. */
  readonly payloadLimitBytes: number | null;
  /** Checks to run; null = all. */
  readonly only: readonly CheckId[] | null;
  /** Extra CA (PEM text) to trust, and whether to skip certificate verification. */
  readonly ca: string | null;
  readonly insecure: boolean;
  /** The client certificate of clients without one of their own; null = none. */
  readonly identity: ClientTlsIdentity | null;
  /** HTTP version asked for: 2 makes a target without h2 an error before any check. */
  readonly httpVersion: HttpVersion;
  /** Absolute path of the request-signing module; null = requests are not signed. */
  readonly sign: string | null;
  /** Treat Retry-After slack over the 1 s rounding allowance as a failure. */
  readonly strictRetryAfter: boolean;
  /** Every request's overall deadline, token requests included (ms). */
  readonly requestTimeoutMs: number;
  /** Skips that do not make the verify fail (`--allow-skip`). */
  readonly allowSkip: AllowedSkips;
  /** Replicas of the API reached directly (base URLs without trailing slashes); empty = none. */
  readonly replicas: readonly string[];
  /** The fault and heal hooks; null when not given (the checks that need them are not applicable). */
  readonly hooks: HookConfig | null;
  /** Whether the target is rpcload's embedded reference server (set by the session). */
  readonly embeddedTarget: boolean;
}

/** `--fault CMD --heal CMD`: shell commands that break and repair what the limiter depends on. */
export interface HookConfig {
  readonly fault: string;
  readonly heal: string;
  /** Each hook's deadline (ms). */
  readonly timeoutMs: number;
  /** The policy the limiter declares for a store outage (`--outage-policy`); null = report it, not judged. */
  readonly outagePolicy: OutagePolicy | null;
  /** Run the hooks even against the embedded reference server (`--hooks-on-embedded`). */
  readonly onEmbedded: boolean;
}

export type OutagePolicy = 'open' | 'closed';

/** Each hook's deadline unless `--hook-timeout` says otherwise. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** The `rpcload verify` flags as parsed (everything optional: a profile or the defaults fill in). */
export interface VerifyFlags {
  readonly target?: string;
  readonly client?: readonly string[];
  /** `PATTERN[:SECRET]`: the first VERIFY_PATTERN_CLIENTS clients of the pattern. */
  readonly clientPattern?: string;
  /** Environment variable holding the secret of clients given without one. */
  readonly secretEnv?: string;
  readonly tokenMethod?: string;
  readonly clientAuth?: 'post' | 'basic';
  readonly method?: readonly string[];
  readonly paginated?: readonly string[];
  readonly limit?: number;
  /** ms */
  readonly window?: number;
  readonly payloadLimit?: number;
  /** Comma-separated check ids. */
  readonly only?: string;
  readonly insecure?: boolean;
  /** `--http2`: HTTP/2 required. */
  readonly http2?: boolean;
  readonly strictRetryAfter?: boolean;
  /** `--timeout`: every request's overall deadline (ms). */
  readonly timeout?: number;
  /** `--allow-skip` alone (true) or with a comma-separated list of skip classes and check ids. */
  readonly allowSkip?: string | true;
  /** `--replica URL` (repeatable). */
  readonly replica?: readonly string[];
  readonly fault?: string;
  readonly heal?: string;
  readonly outagePolicy?: OutagePolicy;
  /** `--hook-timeout` (ms). */
  readonly hookTimeout?: number;
  readonly hooksOnEmbedded?: boolean;
}

/** Clients taken from `--client-pattern`: six let the suite finish in about two windows. */
export const VERIFY_PATTERN_CLIENTS = 6;

const DEFAULT_WINDOW_MS = parseDurationMs(PROFILE_DEFAULTS.rateLimit.window)!;
const DEFAULT_TIMEOUT_MS = parseDurationMs(PROFILE_DEFAULTS.http.requestTimeout)!;

/** `--only a,b`: known check ids, all problems in one line. */
export function parseOnlyFlag(value: string): CheckId[] {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id.length > 0);
  const unknown = ids.filter((id) => !isCheckId(id));
  if (unknown.length > 0 || ids.length === 0) {
    throw new RpcloadError(
      'bad_flag',
      `--only: unknown check id(s) ${unknown.map((id) => JSON.stringify(id)).join(', ') || '(none given)'}; known: ${CHECK_IDS.join(', ')}`,
    );
  }
  return ids.filter(isCheckId);
}

/** `--fault`/`--heal` and their companions: both hooks or neither; the companions only with them. */
function resolveHooks(flags: VerifyFlags): HookConfig | null {
  if ((flags.fault === undefined) !== (flags.heal === undefined))
    throw new RpcloadError(
      'bad_flag',
      '--fault and --heal go together: the command that breaks what the limiter depends on, and the one that repairs it',
    );
  if (flags.fault === undefined || flags.heal === undefined) {
    const stray = [
      ['--outage-policy', flags.outagePolicy],
      ['--hook-timeout', flags.hookTimeout],
      ['--hooks-on-embedded', flags.hooksOnEmbedded],
    ].find(([, value]) => value !== undefined);
    if (stray !== undefined)
      throw new RpcloadError('bad_flag', `${String(stray[0])}: only with --fault CMD --heal CMD`);
    return null;
  }
  if (flags.fault.trim() === '' || flags.heal.trim() === '')
    throw new RpcloadError('bad_flag', '--fault and --heal: expected a shell command, found an empty one');
  if (flags.hookTimeout !== undefined && flags.hookTimeout <= 0)
    throw new RpcloadError('bad_flag', '--hook-timeout: must be longer than 0');
  return {
    fault: flags.fault,
    heal: flags.heal,
    timeoutMs: flags.hookTimeout ?? DEFAULT_HOOK_TIMEOUT_MS,
    outagePolicy: flags.outagePolicy ?? null,
    onEmbedded: flags.hooksOnEmbedded === true,
  };
}

/** Distinct step methods of the plan, in order of first appearance; and those that paginate. */
function planMethods(plan: Plan): { methods: string[]; paginated: PaginatedMethod[] } {
  const steps = plan.scenarios.flatMap((s) => s.steps);
  const methods = [...new Set(steps.map((s) => s.method))];
  const paginated = [...new Set(steps.filter((s) => s.paginate !== null).map((s) => s.method))].map((method) => ({
    method,
    field: null,
  }));
  return { methods, paginated };
}

/** Method names given as flags (a profile's are checked when it is validated). */
function assertMethodNames(flag: string, names: readonly string[]): void {
  const bad = names.find((name) => !isMethodName(name));
  if (bad !== undefined)
    throw new RpcloadError('bad_flag', `${flag}: expected ${METHOD_NAME_EXPECTED}, found ${JSON.stringify(bad)}`);
}

/**
 * The run's configuration: flags override the profile's plan, which overrides the defaults of
 * the conventions. `target` is the resolved base URL (the embedded server's when the plan has
 * none); `caPem` is the text of `--ca` (or the plan's); `identity` the client certificate of
 * `--cert`/`--key` or `--pfx`. Throws one-line RpcloadErrors.
 */
export function resolveVerifyConfig(
  flags: VerifyFlags,
  plan: Plan | null,
  target: string,
  caPem: string | null,
  identity: ClientTlsIdentity | null = null,
): VerifyConfig {
  // Flag syntax first, then what is missing.
  const only = flags.only === undefined ? null : parseOnlyFlag(flags.only);
  const allowSkip = parseAllowSkipFlag(flags.allowSkip);
  const paginated = flags.paginated?.map(parsePaginatedFlag);
  const hooks = resolveHooks(flags);
  const replicas = [...new Set((flags.replica ?? plan?.replicas ?? []).map((url) => url.replace(/\/+$/, '')))];
  const fromPlan = plan === null ? { methods: [], paginated: [] } : planMethods(plan);
  const fromFlags = clientsFromFlags(flags, VERIFY_PATTERN_CLIENTS).map((c): VerifyClient => ({
    ...c,
    tls: null,
    assertionKey: null,
    signingSecret: c.secret,
  }));
  const clients =
    fromFlags.length > 0
      ? fromFlags
      : (plan?.clients.map(({ id, secret, tls, assertionKey, signingSecret }) => ({
          id,
          secret,
          tls,
          assertionKey,
          signingSecret,
        })) ?? []);
  if (clients.length === 0)
    throw new RpcloadError('no_clients', 'no client to verify with: pass --client ID:SECRET (repeatable)');
  const methods = flags.method ? [...new Set(flags.method)] : fromPlan.methods;
  if (methods.length === 0)
    throw new RpcloadError(
      'no_method',
      'no method to probe: pass --method NAME (repeatable; the first is the cheap probe method)',
    );
  assertMethodNames('--method', flags.method ?? []);
  assertMethodNames('--token-method', flags.tokenMethod === undefined ? [] : [flags.tokenMethod]);
  return {
    target: target.replace(/\/+$/, ''),
    tokenMethod: flags.tokenMethod ?? plan?.auth.tokenMethod ?? PROFILE_DEFAULTS.auth.tokenMethod,
    clientAuth: flags.clientAuth ?? plan?.auth.clientAuth ?? PROFILE_DEFAULTS.auth.clientAuth,
    scope: plan?.auth.scope ?? null,
    extraFields: plan?.auth.extraFields ?? {},
    clients,
    methods,
    paginated: paginated ?? fromPlan.paginated,
    limit: flags.limit ?? plan?.rateLimit.limit ?? PROFILE_DEFAULTS.rateLimit.limit,
    windowMs: flags.window ?? plan?.rateLimit.windowMs ?? DEFAULT_WINDOW_MS,
    payloadLimitBytes: flags.payloadLimit ?? null,
    only,
    ca: caPem ?? plan?.http.ca ?? null,
    insecure: flags.insecure === true || plan?.http.insecure === true,
    identity: identity ?? plan?.http.identity ?? null,
    httpVersion: flags.http2 === true ? '2' : (plan?.http.version ?? PROFILE_DEFAULTS.http.version),
    sign: plan?.sign ?? null,
    strictRetryAfter: flags.strictRetryAfter === true,
    requestTimeoutMs: flags.timeout ?? plan?.http.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    allowSkip,
    replicas,
    hooks,
    embeddedTarget: false,
  };
}
