/**
 * From profile to Plan: validation and resolution in one pass, with the `rpcload run` flag
 * overrides applied; a plan is built only from a profile without problems.
 */
import { randomInt } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { CapacitySchema, resolveCapacity } from './capacity-settings.ts';
import { deepFreeze } from './deep-freeze.ts';
import { interpolateEnv } from './interpolate.ts';
import type { HttpClientName, HttpPlan, Plan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { ProfileSchema, type Profile } from './profile-schema.ts';
import { expected, inDocumentOrder, ProfileError, type Problem } from './problems.ts';
import { resolveClients } from './resolve-clients.ts';
import { durationMs, POSITIVE } from './resolve-durations.ts';
import { resolvePhases, type RateOverride, type StageOverride } from './resolve-phases.ts';
import { resolveScenarios } from './resolve-scenarios.ts';
import { resolveAuth, resolveHttp, resolveRateLimit, resolveServer } from './resolve-settings.ts';
import { AuthSchema, HttpSchema, RateLimitSchema, ServerSchema } from './schema-settings.ts';
import { schemaProblems } from './schema-problems.ts';
import { parseThreshold } from './thresholds.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** `rpcload run` flags that override the profile. */
export interface PlanOverrides {
  /** `--target URL`: replaces the profile's target (the embedded server is then not started). */
  readonly target?: string;
  /** `--rate N` or `--rate FROM:TO`: one phase of N iterations/s (or a linear ramp) instead of the profile's phases. */
  readonly rate?: RateOverride;
  /** `--concurrency N`: one phase of N virtual users instead of the profile's phases. */
  readonly concurrency?: number;
  /** `--duration`: length of the `--rate`/`--concurrency` phase, or of the profile's only phase (ms). */
  readonly durationMs?: number;
  /** `--clients N`: pattern clients → count N; listed clients → the first N. */
  readonly clients?: number;
  /** `--timeout`: every request's overall deadline (ms), replacing http.requestTimeout. */
  readonly requestTimeoutMs?: number;
  /** `--stages D:R,…`: ramping open-model phases instead of the profile's. */
  readonly stages?: readonly StageOverride[];
  /** `-n N`: the constant-rate phase lasts N arrivals. */
  readonly requests?: number;
  /** `--ca FILE` (its PEM text) and `--insecure`: the transport's trust, over the profile's `http`. */
  readonly ca?: string;
  readonly insecure?: boolean;
  /** `--http-client`: the load's HTTP client, over the profile's `http.client`. */
  readonly httpClient?: HttpClientName;
  /** `--threshold EXPR` (repeatable): judged after the profile's own thresholds. */
  readonly thresholds?: readonly string[];
}

export interface PlanSource {
  /** Path of the profile file: names the plan, anchors relative paths, prefixes problem lines ('' = none). */
  readonly source: string;
  readonly overrides?: PlanOverrides;
  /**
   * Interpolate `${VAR}` from this environment first. Only for a Profile object made in code:
   * loadProfile has already interpolated its result, and a second pass would undo `$${` escapes.
   */
  readonly env?: NodeJS.ProcessEnv;
}

export interface Resolution {
  /** Present only when there were no problems. */
  readonly plan?: Plan;
  /** Every problem, in document order (flag problems first). */
  readonly problems: readonly Problem[];
}

/**
 * Validate and resolve a profile value in one pass: schema problems from TypeBox, then semantic
 * problems from every field that passed the schema (so one bad field hides no other problem).
 * The plan is built only when nothing was wrong.
 */
export function resolvePlan(value: unknown, { source, overrides = {} }: Omit<PlanSource, 'env'>): Resolution {
  const problems: Problem[] = schemaProblems(ProfileSchema, value);
  // Semantic checks see only fields that passed the schema (see validFields); arrays of scenarios
  // and phases are walked item by item for the same reason.
  const raw = isRecord(value) ? value : {};
  const doc = validFields(ProfileSchema, value);
  const baseDir = dirname(source || '.');
  const target = resolveTarget(overrides.target ?? doc.target, overrides.target === undefined ? '/target' : '--target', problems);
  const auth = resolveAuth(validFields(AuthSchema, raw.auth), problems);
  const rateLimit = resolveRateLimit(validFields(RateLimitSchema, raw.rateLimit), problems);
  const seed = doc.seed ?? randomInt(0, 2 ** 32);
  const clientCount = overrides.clients;
  if (clientCount !== undefined && !(Number.isInteger(clientCount) && clientCount > 0))
    problems.push(expected('--clients', 'a positive integer', clientCount));
  // Clients are all or nothing: a broken union has no meaningful parts, and its defaults could
  // report a false "no secret" problem.
  const clientsValid = raw.clients === undefined || doc.clients !== undefined;
  const plan: Plan = {
    name: doc.name ?? (basename(source, '.json') || 'profile'),
    source,
    target,
    embeddedServer: resolveServer(validFields(ServerSchema, raw.server), { rateLimit, tokenMethod: auth.tokenMethod, seed }, problems),
    auth,
    clients: clientsValid ? resolveClients(doc.clients ?? {}, { external: target !== null, baseDir, count: clientCount }, problems) : [],
    scenarios: resolveScenarios(raw.scenarios, auth.tokenMethod, problems),
    phases: resolvePhases(raw.phases, overrides, problems),
    rateLimit,
    thresholds: [...resolveThresholds(raw.thresholds, problems), ...flagThresholds(overrides.thresholds, problems)],
    http: withHttpOverrides(
      withRequestTimeout(resolveHttp(validFields(HttpSchema, raw.http), baseDir, problems), overrides.requestTimeoutMs, problems),
      overrides,
    ),
    seed,
    checkpointEveryMs: durationMs(doc.checkpointEvery ?? D.checkpointEvery, '/checkpointEvery', problems, POSITIVE),
    ...(raw.capacity === undefined ? {} : { capacity: resolveCapacity(validFields(CapacitySchema, raw.capacity), problems) }),
  };
  if (problems.length > 0) return { problems: inDocumentOrder(value, problems) };
  return { plan: deepFreeze(plan), problems };
}

/** The http settings with `--timeout` applied. */
function withRequestTimeout(http: HttpPlan, timeoutMs: number | undefined, problems: Problem[]): HttpPlan {
  if (timeoutMs === undefined) return http;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) problems.push(expected('--timeout', 'a duration greater than 0', timeoutMs));
  return { ...http, requestTimeoutMs: timeoutMs };
}

/** The base URL without trailing slashes; absent or empty → null (embedded server). */
function resolveTarget(value: string | undefined, pointer: string, problems: Problem[]): string | null {
  if (value === undefined || value === '') return null;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'http:' && protocol !== 'https:') problems.push(expected(pointer, 'an http:// or https:// URL', value));
  return value.replace(/\/+$/, '');
}

function resolveThresholds(value: unknown, problems: Problem[]): Plan['thresholds'] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((expr: unknown, index) => {
    if (typeof expr !== 'string') return [];
    try {
      return [parseThreshold(expr)];
    } catch (err) {
      problems.push({ path: `/thresholds/${index}`, message: (err as Error).message });
      return [];
    }
  });
}

/** `--threshold EXPR` flags, parsed like the profile's. */
function flagThresholds(exprs: readonly string[] | undefined, problems: Problem[]): Plan['thresholds'] {
  return (exprs ?? []).flatMap((expr) => {
    try {
      return [parseThreshold(expr)];
    } catch (err) {
      problems.push({ path: '--threshold', message: (err as Error).message });
      return [];
    }
  });
}

/** `--ca` replaces the profile's CA; `--insecure` can only switch verification off; `--http-client` replaces the client. */
function withHttpOverrides(http: Plan['http'], overrides: PlanOverrides): Plan['http'] {
  return {
    ...http,
    ca: overrides.ca ?? http.ca,
    insecure: http.insecure || overrides.insecure === true,
    client: overrides.httpClient ?? http.client,
  };
}

/**
 * Resolve a profile into the frozen Plan the driver runs: every default applied, durations in ms,
 * templates compiled, thresholds parsed (a typo fails here, before any load), overrides applied.
 * Reads `clients.secretsFile` and `http.ca` relative to `source`. Throws a ProfileError listing
 * every problem (exit 2).
 */
export function buildPlan(profile: Profile, options: PlanSource): Plan {
  let value: unknown = profile;
  if (options.env) {
    const interpolated = interpolateEnv(profile, options.env);
    if (interpolated.problems.length > 0) throw new ProfileError(options.source, interpolated.problems);
    value = interpolated.value;
  }
  const { plan, problems } = resolvePlan(value, options);
  if (!plan) throw new ProfileError(options.source, problems);
  return plan;
}
