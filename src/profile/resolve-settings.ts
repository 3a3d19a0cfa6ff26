/** Resolve the settings sections (auth, rateLimit, http, server): defaults applied, durations in ms. */
import { isMethodName, METHOD_NAME_EXPECTED } from '../api/http-call.ts';
import type { RateLimitContract } from '../contract/rate-limit.ts';
import type { AuthPlan, HttpPlan, Plan, TracePlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { readTlsIdentity } from './key-files.ts';
import { readCa } from './profile-files.ts';
import { expected, type Problem } from './problems.ts';
import { ALLOW_ZERO, durationMs, POSITIVE } from './resolve-durations.ts';
import { httpClientNamed } from './http-clients.ts';
import type { AuthSettings, HttpSettings, RateLimitSettings, ServerSettings } from './schema-settings.ts';

export function resolveAuth(auth: AuthSettings, problems: Problem[]): AuthPlan {
  if (auth.tokenMethod !== undefined && !isMethodName(auth.tokenMethod))
    problems.push(expected('/auth/tokenMethod', METHOD_NAME_EXPECTED, auth.tokenMethod));
  return {
    tokenMethod: auth.tokenMethod ?? D.auth.tokenMethod,
    clientAuth: auth.clientAuth ?? D.auth.clientAuth,
    assertionAlg: auth.assertionAlg ?? null,
    scope: auth.scope ?? null,
    extraFields: { ...auth.extraFields },
    refreshMarginS:
      durationMs(auth.refreshMargin ?? D.auth.refreshMargin, '/auth/refreshMargin', problems, ALLOW_ZERO) / 1000,
  };
}

export function resolveRateLimit(rateLimit: RateLimitSettings, problems: Problem[]): RateLimitContract {
  return {
    limit: rateLimit.limit ?? D.rateLimit.limit,
    windowMs: durationMs(rateLimit.window ?? D.rateLimit.window, '/rateLimit/window', problems, POSITIVE),
    policy: rateLimit.on429 ?? D.rateLimit.on429,
  };
}

/** The http settings that are durations. */
type TimeoutKey = 'connectTimeout' | 'headersTimeout' | 'bodyTimeout' | 'idleTimeout' | 'requestTimeout';

export function resolveHttp(http: HttpSettings, baseDir: string, problems: Problem[]): HttpPlan {
  const timeout = (key: TimeoutKey): number => durationMs(http[key] ?? D.http[key], `/http/${key}`, problems, POSITIVE);
  let ca: string | null = null;
  if (http.ca !== undefined) {
    const read = readCa(baseDir, http.ca);
    if (read.ok) ca = read.value;
    else
      problems.push({
        path: '/http/ca',
        message: `expected a PEM certificate (inline, or a file relative to the profile), found ${read.reason}`,
      });
  }
  return {
    connections: http.connections ?? D.http.connections,
    pipelining: http.pipelining ?? D.http.pipelining,
    version: http.version ?? D.http.version,
    maxConcurrentStreams: http.maxConcurrentStreams ?? D.http.maxConcurrentStreams,
    connectTimeoutMs: timeout('connectTimeout'),
    headersTimeoutMs: timeout('headersTimeout'),
    bodyTimeoutMs: timeout('bodyTimeout'),
    idleTimeoutMs: timeout('idleTimeout'),
    requestTimeoutMs: timeout('requestTimeout'),
    bodyCapBytes: http.bodyCapBytes ?? D.http.bodyCapBytes,
    maxResponseBytes: http.maxResponseBytes ?? D.http.maxResponseBytes,
    maxInFlight: http.maxInFlight ?? D.http.maxInFlight,
    ca,
    insecure: http.insecure ?? D.http.insecure,
    identity: resolveIdentity(http, baseDir, problems),
    preconnect: http.preconnect ?? D.http.preconnect,
    warmUp: http.warmUp ?? D.http.warmUp,
    client: httpClientNamed(http.client ?? D.http.client) ?? D.http.client,
  };
}

/** The common client certificate (`http.cert` + `http.key`, or `http.pfx`), checked; null when none is given. */
function resolveIdentity(http: HttpSettings, baseDir: string, problems: Problem[]): HttpPlan['identity'] {
  if (http.cert === undefined && http.pfx === undefined) {
    if (http.key !== undefined)
      problems.push(expected('/http/key', 'http.cert beside it (a key without its certificate)', 'a key alone'));
    return null;
  }
  if (http.cert !== undefined && http.pfx !== undefined) {
    problems.push(expected('/http/pfx', 'either cert (+ key) or pfx', 'both'));
    return null;
  }
  const read = readTlsIdentity(baseDir, {
    cert: http.cert,
    key: http.key,
    pfx: http.pfx,
    passphrase: http.keyPassphrase,
  });
  if (read.ok) return read.value;
  problems.push({
    path: http.pfx === undefined ? '/http/cert' : '/http/pfx',
    message: `expected a client certificate with its private key, found ${read.reason}`,
  });
  return null;
}

/** The trace-context settings (profile `http.trace*`); the stream is the whole run's until it is split. */
export function resolveTrace(http: HttpSettings, seed: number): TracePlan {
  return {
    mode: http.traceContext ?? D.http.traceContext,
    sampleRatio: http.traceSampleRatio ?? D.http.traceSampleRatio,
    tracestate: http.tracestate ?? null,
    baggageRunId: http.traceBaggage ?? D.http.traceBaggage,
    runId: null,
    seed,
    stream: 0,
  };
}

/**
 * The embedded server's options. Its limit and window default to the profile's rateLimit, so a
 * profile that changes the contract tests the driver against a server that enforces it.
 */
export function resolveServer(
  server: ServerSettings,
  context: { readonly rateLimit: RateLimitContract; readonly tokenMethod: string; readonly seed: number },
  problems: Problem[],
): Plan['embeddedServer'] {
  const S = D.server;
  const tokenTtlText = server.tokenTtl ?? S.tokenTtl;
  const tokenTtlMs = durationMs(tokenTtlText, '/server/tokenTtl', problems, POSITIVE);
  // expires_in is whole seconds on the wire.
  if (tokenTtlMs % 1000 !== 0) problems.push(expected('/server/tokenTtl', 'a whole number of seconds', tokenTtlText));
  const p50Text = server.workLatency?.p50 ?? S.workLatencyP50;
  const p99Text = server.workLatency?.p99 ?? S.workLatencyP99;
  const p50Ms = durationMs(p50Text, '/server/workLatency/p50', problems, POSITIVE);
  const p99Ms = durationMs(p99Text, '/server/workLatency/p99', problems, POSITIVE);
  if (server.http2 === true && server.tls !== true)
    problems.push(expected('/server/http2', 'server.tls true beside it (HTTP/2 is served over TLS)', true));
  if (p99Ms < p50Ms)
    problems.push(expected('/server/workLatency/p99', `at least p50 (${JSON.stringify(p50Text)})`, p99Text));
  return {
    limit: server.limit ?? context.rateLimit.limit,
    windowMs:
      server.window === undefined
        ? context.rateLimit.windowMs
        : durationMs(server.window, '/server/window', problems, POSITIVE),
    algorithm: server.algorithm ?? S.algorithm,
    tokenMethod: context.tokenMethod,
    tokenTtlS: tokenTtlMs / 1000,
    tokenResponse: server.tokenResponse ?? S.tokenResponse,
    payloadLimitBytes: server.payloadLimitBytes ?? S.payloadLimitBytes,
    itemCount: server.itemCount ?? S.itemCount,
    pageSize: server.pageSize ?? S.pageSize,
    cursorTtlMs: durationMs(server.cursorTtl ?? S.cursorTtl, '/server/cursorTtl', problems, POSITIVE),
    workLatency: { p50Ms, p99Ms },
    flakyRate: server.flakyRate ?? S.flakyRate,
    brokenEnvelopeRate: server.brokenEnvelopeRate ?? S.brokenEnvelopeRate,
    chaosRate: server.chaosRate ?? S.chaosRate,
    addedLatencyMs: durationMs(server.addedLatency ?? S.addedLatency, '/server/addedLatency', problems, ALLOW_ZERO),
    faults: [...(server.faults ?? [])],
    tls: server.tls ?? S.tls,
    http2: server.http2 ?? S.http2,
    ...(server.capacity === undefined
      ? {}
      : {
          capacity: {
            ratePerS: server.capacity.rate,
            workers: server.capacity.workers,
            maxQueueMs:
              server.capacity.maxQueue === undefined
                ? null
                : durationMs(server.capacity.maxQueue, '/server/capacity/maxQueue', problems, ALLOW_ZERO),
          },
        }),
    seed: context.seed,
  };
}
