/**
 * From profile to Plan: validation and resolution in one pass, with the `rpcload run` flag
 * overrides applied; a plan is built only from a profile without problems.
 */
import { statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { ClientTlsIdentity, HttpVersion } from '../api/dispatcher.ts';
import { CapacitySchema, resolveCapacity } from './capacity-settings.ts';
import { interpolateEnv } from './interpolate.ts';
import type { ArrivalProcess, HttpClientName, HttpPlan, Plan, ReplicaAffinity, SetupPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { ProfileSchema, ThresholdSchema, type Profile } from './profile-schema.ts';
import { expected, inDocumentOrder, ProfileError, type Problem } from './problems.ts';
import { resolveClients } from './resolve-clients.ts';
import { dataSetNames, resolveData } from './resolve-data.ts';
import { ALLOW_ZERO, durationMs, POSITIVE } from './resolve-durations.ts';
import type { PhaseLoad, Stage } from './phase-load.ts';
import { fileErrorReason } from './profile-files.ts';
import { resolveScenarios } from './resolve-scenarios.ts';
import { resolveSteps, setupClient, type ResolvedSteps } from './resolve-setup.ts';
import { resolveWorkloads } from './resolve-workloads.ts';
import { selectorProblems } from './selection.ts';
import { resolveAuth, resolveHttp, resolveRateLimit, resolveServer, resolveTrace } from './resolve-settings.ts';
import { AuthSchema, HttpSchema, RateLimitSchema, ServerSchema } from './schema-settings.ts';
import { schemaProblems } from './schema-problems.ts';
import { targetUrlProblem } from './target-url.ts';
import { parseThreshold } from './thresholds.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** `rpcload run` flags that override the profile. */
export interface PlanOverrides {
  /** `--target URL`: replaces the profile's target (the embedded server is then not started). */
  readonly target?: string;
  /**
   * `--rate N` or `--rate FROM:TO` (N iterations/s, or a linear ramp), or `--concurrency N` (N virtual
   * users): one phase of this load instead of the profile's phases.
   */
  readonly load?: PhaseLoad;
  /** `--duration`: length of the `--rate`/`--concurrency` phase, or of the profile's only phase (ms). */
  readonly durationMs?: number;
  /** `--clients N`: pattern clients → count N; listed clients → the first N. */
  readonly clients?: number;
  /** `--timeout`: every request's overall deadline (ms), replacing http.requestTimeout. */
  readonly requestTimeoutMs?: number;
  /** `--stages D:R,…`: ramping open-model phases instead of the profile's. */
  readonly stages?: readonly Stage[];
  /** `--arrivals uniform|poisson`: the arrival process of every phase. */
  readonly arrivals?: ArrivalProcess;
  /** `-n N`: the constant-rate phase lasts N arrivals. */
  readonly requests?: number;
  /** `--ca FILE` (its PEM text) and `--insecure`: the transport's trust, over the profile's `http`. */
  readonly ca?: string;
  readonly insecure?: boolean;
  /** `--cert`/`--key` or `--pfx` (read and checked): the common client certificate, over the profile's. */
  readonly identity?: ClientTlsIdentity;
  /** `--http2`: HTTP/2 required, over http.version. */
  readonly httpVersion?: HttpVersion;
  /** `--http-client`: the load's HTTP client, over the profile's `http.client`. */
  readonly httpClient?: HttpClientName;
  /** `--threshold EXPR` (repeatable): judged after the profile's own thresholds. */
  readonly thresholds?: readonly string[];
  /** `--replica URL` (repeatable): replaces the profile's replicas. */
  readonly replicas?: readonly string[];
  /** `--replica-affinity request|client`. */
  readonly replicaAffinity?: ReplicaAffinity;
  /** `--replay FILE`: the recording brings the calls, so the profile needs no scenarios or phases. */
  readonly replay?: string;
  /** `--workload NAME`: which workload the load flags (and `--replay`) change; needed when there are several. */
  readonly workload?: string;
}

/** A threshold given as an object (`{"threshold": …, "abortOnFail": true}`). */
const ThresholdObjectSchema = ThresholdSchema.anyOf[1];

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
  const target = resolveTarget(
    overrides.target ?? doc.target,
    overrides.target === undefined ? '/target' : '--target',
    problems,
  );
  const auth = resolveAuth(validFields(AuthSchema, raw.auth), problems);
  const rateLimit = resolveRateLimit(validFields(RateLimitSchema, raw.rateLimit), problems);
  // The seed picks a load mix, not a secret: Math.random (seeded by V8 from the OS) serves, and
  // node:crypto (~8 ms to load) stays out of `profile validate`.
  const seed = doc.seed ?? Math.floor(Math.random() * 2 ** 32);
  const clientCount = overrides.clients;
  if (clientCount !== undefined && !(Number.isInteger(clientCount) && clientCount > 0))
    problems.push(expected('--clients', 'a positive integer', clientCount));
  // Clients are all or nothing: a broken union has no meaningful parts, and its defaults could
  // report a false "no secret" problem.
  const clientsValid = raw.clients === undefined || doc.clients !== undefined;
  const httpSettings = validFields(HttpSchema, raw.http);
  const baseHttp = withRequestTimeout(
    resolveHttp(httpSettings, baseDir, problems),
    overrides.requestTimeoutMs,
    problems,
  );
  const http = withTransportOverrides(baseHttp, overrides);
  const clientsContext = {
    external: target !== null && auth.clientAuth !== 'private_key_jwt',
    baseDir,
    count: clientCount,
    keyPassphrase: httpSettings.keyPassphrase,
    assertionAlg: auth.assertionAlg,
    needsAssertionKey: auth.clientAuth === 'private_key_jwt',
  };
  const embeddedServer = resolveServer(
    validFields(ServerSchema, raw.server),
    { rateLimit, tokenMethod: auth.tokenMethod, seed },
    problems,
  );
  checkHttpVersion(
    http.version,
    target,
    embeddedServer,
    overrides.httpVersion === undefined ? '/http/version' : '--http2',
    problems,
  );
  const dataColumns = new Map<string, Set<string>>();
  const setup = resolveSteps('setup', raw.setup, auth.tokenMethod, null, problems);
  const scenarios = resolveScenarios(
    raw.scenarios,
    auth.tokenMethod,
    problems,
    dataSetNames(raw.data),
    dataColumns,
    setup?.saves ?? [],
  );
  const teardown = resolveSteps('teardown', raw.teardown, auth.tokenMethod, setup?.saves ?? [], problems);
  const clientsSettings = doc.clients ?? {};
  // With workloads that all bring their own clients, no top-level identities are made up.
  const workloadItems = Array.isArray(raw.workloads) ? (raw.workloads as unknown[]) : null;
  const ownClientsOnly =
    workloadItems !== null &&
    raw.clients === undefined &&
    workloadItems.every((w) => isRecord(w) && w.clients !== undefined);
  const topClients = clientsValid && !ownClientsOnly ? resolveClients(clientsSettings, clientsContext, problems) : [];
  const resolved = resolveWorkloads(
    { raw, clients: topClients, clientsSettings, clientsContext, scenarios, baseDir, overrides },
    problems,
  );
  const clients = resolved.clients;
  const setupPlan = setup === null ? null : stepsPlan(setup, setupClient(setup, clients, clientsSettings, problems));
  const teardownPlan =
    teardown === null ? null : stepsPlan(teardown, setupClient(teardown, clients, clientsSettings, problems));
  const thresholds = [
    ...resolveThresholds(raw.thresholds, problems),
    ...flagThresholds(overrides.thresholds, problems),
  ];
  const plan: Plan = {
    name: doc.name ?? (basename(source, '.json') || 'profile'),
    source,
    target,
    replicas: resolveReplicas(overrides.replicas, doc.replicas, target, problems),
    replicaAffinity: overrides.replicaAffinity ?? 'request',
    embeddedServer,
    auth,
    clients,
    scenarios,
    workloads: resolved.workloads,
    phases: resolved.phases,
    setup: setupPlan,
    teardown: teardownPlan,
    rateLimit,
    thresholds,
    http,
    sign: doc.sign === undefined ? null : resolveSignModule(doc.sign, baseDir, problems),
    seed,
    trace: resolveTrace(validFields(HttpSchema, raw.http), seed),
    report: { traceUrl: doc.report?.traceUrl ?? null },
    checkpointEveryMs: durationMs(doc.checkpointEvery ?? D.checkpointEvery, '/checkpointEvery', problems, POSITIVE),
    data: resolveData(raw.data, baseDir, dataColumns, problems),
    dataPart: { index: 0, count: 1 },
    ...(raw.capacity === undefined
      ? {}
      : { capacity: resolveCapacity(validFields(CapacitySchema, raw.capacity), problems) }),
  };
  // A replay brings its own calls and timing: scenarios are needed only by the other workloads,
  // top-level phases only by a profile without workloads or a replay.
  const replaysOnly = plan.workloads.every((w) => w.replaySettings !== undefined);
  if (isRecord(value) && !replaysOnly && raw.scenarios === undefined)
    problems.push({ path: '/scenarios', message: 'expected a list of at least 1 item (required), found nothing' });
  if (isRecord(value) && workloadItems === null && !replaysOnly && raw.phases === undefined)
    problems.push({ path: '/phases', message: 'expected a list of at least 1 item (required), found nothing' });
  // Thresholds name their selections in the plan's terms: checked once the plan is whole.
  if (problems.length === 0)
    problems.push(...selectorProblems(plan, thresholds, (i) => thresholdPointer(raw.thresholds, i)));
  if (problems.length > 0) return { problems: inDocumentOrder(value, problems) };
  return { plan: deepFreeze(plan), problems };
}

/** The http settings with `--timeout` applied. */
function withRequestTimeout(http: HttpPlan, timeoutMs: number | undefined, problems: Problem[]): HttpPlan {
  if (timeoutMs === undefined) return http;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
    problems.push(expected('--timeout', 'a duration greater than 0', timeoutMs));
  return { ...http, requestTimeoutMs: timeoutMs };
}

/** The base URL without trailing slashes; absent or empty → null (embedded server). */
function resolveTarget(value: string | undefined, pointer: string, problems: Problem[]): string | null {
  if (value === undefined || value === '') return null;
  const problem = targetUrlProblem(value);
  if (problem !== null) problems.push({ path: pointer, message: problem });
  return value.replace(/\/+$/, '');
}

/** `--replica` flags over the profile's `replicas`: each an http(s) URL, and only beside a target of their own. */
function resolveReplicas(
  flags: readonly string[] | undefined,
  profile: readonly string[] | undefined,
  target: string | null,
  problems: Problem[],
): string[] {
  const urls = (flags ?? profile ?? []).map(
    (url, i) => resolveTarget(url, flags === undefined ? `/replicas/${i}` : '--replica', problems) ?? '',
  );
  if (urls.length > 0 && target === null)
    problems.push({
      path: flags === undefined ? '/replicas' : '--replica',
      message:
        'replicas need a target (the URL clients use, where tokens come from); the embedded server has no replicas',
    });
  return urls;
}

/** The profile's thresholds: expressions, or objects `{threshold, abortOnFail, delayAbortEval}`. */
function resolveThresholds(value: unknown, problems: Problem[]): Plan['thresholds'] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown, index) => {
    const pointer = `/thresholds/${index}`;
    const fields = typeof item === 'string' ? { threshold: item } : validFields(ThresholdObjectSchema, item);
    if (fields.threshold === undefined) return [];
    const delayAbortEvalMs =
      fields.delayAbortEval === undefined
        ? 0
        : durationMs(fields.delayAbortEval, `${pointer}/delayAbortEval`, problems, ALLOW_ZERO);
    if (fields.delayAbortEval !== undefined && fields.abortOnFail !== true)
      problems.push(
        expected(
          `${pointer}/delayAbortEval`,
          '"abortOnFail": true beside it (only a live threshold is delayed)',
          fields.delayAbortEval,
        ),
      );
    try {
      return [parseThreshold(fields.threshold, { abortOnFail: fields.abortOnFail === true, delayAbortEvalMs })];
    } catch (err) {
      problems.push({
        path: typeof item === 'string' ? pointer : `${pointer}/threshold`,
        message: (err as Error).message,
      });
      return [];
    }
  });
}

/** Where threshold `index` of the plan came from: the profile's list, or (after it) a `--threshold` flag. */
function thresholdPointer(value: unknown, index: number): string {
  const count = Array.isArray(value) ? value.length : 0;
  if (index >= count) return '--threshold';
  return Array.isArray(value) && typeof value[index] !== 'string'
    ? `/thresholds/${index}/threshold`
    : `/thresholds/${index}`;
}

/** Setup or teardown as plan data, run by the client at `client`. */
function stepsPlan(resolved: ResolvedSteps, client: number): SetupPlan {
  return { client, steps: resolved.steps, timeoutMs: resolved.timeoutMs, saves: resolved.saves };
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

/**
 * `--ca` replaces the profile's CA; `--insecure` can only switch verification off; `--cert`/`--pfx`
 * replace the common client certificate; `--http2` requires HTTP/2; `--http-client` replaces the
 * load's HTTP client.
 */
function withTransportOverrides(http: Plan['http'], overrides: PlanOverrides): Plan['http'] {
  return {
    ...http,
    ca: overrides.ca ?? http.ca,
    insecure: http.insecure || overrides.insecure === true,
    identity: overrides.identity ?? http.identity,
    version: overrides.httpVersion ?? http.version,
    client: overrides.httpClient ?? http.client,
  };
}

/** HTTP/2 is negotiated with TLS ALPN: "2" needs an https target, or an embedded server serving TLS and HTTP/2. */
function checkHttpVersion(
  version: Plan['http']['version'],
  target: string | null,
  server: Plan['embeddedServer'],
  pointer: string,
  problems: Problem[],
): void {
  if (version !== '2') return;
  if (target !== null && !target.startsWith('https:'))
    problems.push(expected(pointer, 'an https:// target for HTTP/2 (it is negotiated with TLS ALPN)', target));
  if (target === null && !(server.tls === true && server.http2 === true))
    problems.push({
      path: pointer,
      message: 'expected server.tls and server.http2 for HTTP/2 against the embedded server, found them off',
    });
}

/** The sign module's absolute path; a problem when it is not a readable file. */
function resolveSignModule(setting: string, baseDir: string, problems: Problem[]): string {
  const path = resolve(baseDir, setting);
  try {
    if (!statSync(path).isFile())
      problems.push(expected('/sign', 'a JavaScript module file (relative to the profile)', setting));
  } catch (err) {
    problems.push({
      path: '/sign',
      message: `expected a JavaScript module file (relative to the profile), found ${JSON.stringify(setting)}: ${fileErrorReason(err)}`,
    });
  }
  return path;
}

/**
 * Resolve a profile into the frozen Plan the driver runs: every default applied, durations in ms,
 * templates compiled, thresholds parsed (a typo fails here, before any load), overrides applied.
 * Reads `clients.secretsFile` and `http.ca` relative to `source`. Throws a ProfileError listing
 * every problem (exit 2).
 */
/**
 * Freeze an object graph (plain objects and arrays; functions are left as they are). The plan is
 * shared by the driver, the views and the result writer, so no one may change it under another.
 */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    // Children first: an object frozen earlier (e.g. a parsed threshold) may still hold unfrozen ones.
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

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
