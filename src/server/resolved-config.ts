/**
 * The reference server's options resolved: every default applied and every value validated
 * before the server starts.
 */
import { RpcloadError } from '../errors.ts';
import { pemCertificateProblem } from '../util/pem.ts';
import { publicKeyProblem } from './auth/client-assertion.ts';
import {
  FAULT_NAMES,
  LIMITER_ALGORITHMS,
  LIMITER_STORES,
  STORE_OUTAGE_POLICIES,
  type ClientCredential,
  type ClientPublicKey,
  type FaultName,
  type LimiterAlgorithm,
  type LimiterStore,
  type ServerOptions,
  type StoreOutagePolicy,
} from './options.ts';
import { DEFAULT_MAX_ORDERS, DEMO_CLIENT_PATTERN, DEMO_CLIENT_PREFIXES } from './defaults.ts';
import { serviceCapacityProblem, type ServiceCapacitySettings } from './service-capacity.ts';

/** Method names as they appear in `/api/{method}`. */
export const METHOD_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** The client patterns a server accepts: the demo's prefixes when it runs on the demo pattern. */
export function acceptedPatterns(
  config: Pick<ServerConfig, 'clientPattern'>,
): readonly { readonly prefix: string; readonly secret: string }[] {
  if (config.clientPattern === null) return [];
  if (config.clientPattern !== DEMO_CLIENT_PATTERN) return [config.clientPattern];
  return DEMO_CLIENT_PREFIXES.map((prefix) => ({ prefix, secret: DEMO_CLIENT_PATTERN.secret }));
}

/** Payload limit enforced by the `payload-limit-wrong` fault (64 KiB instead of 100 KB). */
export const WRONG_PAYLOAD_LIMIT_BYTES = 65_536;

/** ServerOptions resolved: every default applied, validated, frozen. Internal to the server. */
export interface ServerConfig {
  readonly host: string;
  readonly port: number;
  readonly limit: number;
  readonly windowMs: number;
  readonly algorithm: LimiterAlgorithm;
  readonly clients: readonly ClientCredential[];
  readonly clientPattern: { readonly prefix: string; readonly secret: string } | null;
  readonly tokenMethod: string;
  readonly tokenTtlS: number;
  /** The limit actually enforced (the `payload-limit-wrong` fault already applied). */
  readonly payloadLimitBytes: number;
  readonly itemCount: number;
  readonly pageSize: number;
  readonly cursorTtlMs: number;
  readonly maxOrders: number;
  readonly workLatency: { readonly p50Ms: number; readonly p99Ms: number };
  readonly flakyRate: number;
  readonly brokenEnvelopeRate: number;
  readonly chaosRate: number;
  readonly tokenResponse: 'envelope' | 'bare';
  readonly addedLatencyMs: number;
  readonly capacity: ServiceCapacitySettings | null;
  readonly faults: ReadonlySet<FaultName>;
  readonly tls: ServerOptions['tls'];
  readonly http2: boolean;
  /** PEM CA that client certificates must chain to; null = no client certificate asked for. */
  readonly clientCa: string | null;
  readonly clientKeys: readonly ClientPublicKey[];
  readonly realm: string;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly seed: number;
  readonly replicas: number;
  readonly limiterStore: LimiterStore;
  readonly storeFaultFile: string | null;
  readonly storeOutagePolicy: StoreOutagePolicy;
}

/** Most replicas one server process runs. */
export const MAX_REPLICAS = 64;

/** Resolve and validate options; every mistake is reported at once in one line (exit 2). */
export function resolveServerConfig(options: ServerOptions, randomSeed: () => number): ServerConfig {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string): void => {
    if (!ok) problems.push(problem);
  };
  const isInt = (n: number, min: number, max = Number.MAX_SAFE_INTEGER): boolean =>
    Number.isInteger(n) && n >= min && n <= max;
  const isRate = (n: number): boolean => Number.isFinite(n) && n >= 0 && n <= 1;
  const isMs = (n: number): boolean => Number.isFinite(n) && n >= 0;

  const faults = new Set(options.faults ?? []);
  const config: ServerConfig = {
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    limit: options.limit ?? 100,
    windowMs: options.windowMs ?? 10_000,
    algorithm: options.algorithm ?? 'fixed',
    clients: options.clients ?? [],
    clientPattern: options.clientPattern ?? (options.clients?.length ? null : DEMO_CLIENT_PATTERN),
    tokenMethod: options.tokenMethod ?? 'auth.token',
    tokenTtlS: options.tokenTtlS ?? 3600,
    payloadLimitBytes: faults.has('payload-limit-wrong')
      ? WRONG_PAYLOAD_LIMIT_BYTES
      : (options.payloadLimitBytes ?? 100_000),
    itemCount: options.itemCount ?? 1000,
    pageSize: options.pageSize ?? 100,
    cursorTtlMs: options.cursorTtlMs ?? 60_000,
    maxOrders: options.maxOrders ?? DEFAULT_MAX_ORDERS,
    workLatency: options.workLatency ?? { p50Ms: 20, p99Ms: 200 },
    flakyRate: options.flakyRate ?? 0.1,
    brokenEnvelopeRate: options.brokenEnvelopeRate ?? 0.2,
    chaosRate: options.chaosRate ?? 0.1,
    tokenResponse: options.tokenResponse ?? 'envelope',
    addedLatencyMs: options.addedLatencyMs ?? 0,
    capacity: options.capacity ?? null,
    faults,
    tls: options.tls ?? false,
    http2: options.http2 ?? false,
    clientCa: options.clientCa ?? null,
    clientKeys: options.clientKeys ?? [],
    realm: options.realm ?? 'rpcload',
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    seed: options.seed ?? randomSeed(),
    replicas: options.replicas ?? 1,
    limiterStore: options.limiterStore ?? 'shared',
    storeFaultFile: options.storeFaultFile ?? null,
    storeOutagePolicy: options.storeOutagePolicy ?? 'closed-503',
  };

  check(config.host.length > 0, 'host must not be empty');
  check(isInt(config.port, 0, 65_535), `port must be an integer 0–65535, found ${config.port}`);
  check(isInt(config.limit, 1), `limit must be a positive integer, found ${config.limit}`);
  check(
    Number.isFinite(config.windowMs) && config.windowMs >= 1,
    `windowMs must be at least 1, found ${config.windowMs}`,
  );
  check(
    (LIMITER_ALGORITHMS as readonly string[]).includes(config.algorithm),
    `algorithm must be one of ${LIMITER_ALGORITHMS.join(', ')}, found ${JSON.stringify(config.algorithm)}`,
  );
  for (const fault of faults)
    check(FAULT_NAMES.includes(fault), `unknown fault ${JSON.stringify(fault)} (known: ${FAULT_NAMES.join(', ')})`);
  for (const client of config.clients) {
    check(client.id.length > 0 && client.secret.length > 0, 'every client needs a non-empty id and secret');
  }
  check(
    config.clientPattern === null || config.clientPattern.secret.length > 0,
    'clientPattern needs a non-empty secret',
  );
  check(!config.http2 || config.tls !== false, 'http2 needs tls (HTTP/2 is served over TLS, negotiated with ALPN)');
  check(config.clientCa === null || config.tls !== false, 'clientCa needs tls (client certificates are a TLS matter)');
  const caProblem = config.clientCa === null ? null : pemCertificateProblem(config.clientCa);
  if (caProblem !== null) problems.push(`clientCa: ${caProblem}`);
  for (const key of config.clientKeys) {
    const problem = publicKeyProblem(key);
    if (problem !== null) problems.push(problem);
  }
  check(
    METHOD_NAME_PATTERN.test(config.tokenMethod),
    `tokenMethod must match ${METHOD_NAME_PATTERN.source}, found ${JSON.stringify(config.tokenMethod)}`,
  );
  check(isInt(config.tokenTtlS, 1), `tokenTtlS must be a whole number of seconds ≥ 1, found ${config.tokenTtlS}`);
  check(
    isInt(config.payloadLimitBytes, 0),
    `payloadLimitBytes must be a non-negative integer, found ${config.payloadLimitBytes}`,
  );
  check(isInt(config.itemCount, 0, 10_000_000), `itemCount must be an integer 0–10,000,000, found ${config.itemCount}`);
  check(isInt(config.pageSize, 1, 100), `pageSize must be an integer 1–100, found ${config.pageSize}`);
  check(
    Number.isFinite(config.cursorTtlMs) && config.cursorTtlMs > 0,
    `cursorTtlMs must be positive, found ${config.cursorTtlMs}`,
  );
  check(isInt(config.maxOrders, 1, 1e7), `maxOrders must be an integer 1–10,000,000, found ${config.maxOrders}`);
  const { p50Ms, p99Ms } = config.workLatency;
  check(
    Number.isFinite(p50Ms) && p50Ms > 0 && Number.isFinite(p99Ms) && p99Ms >= p50Ms,
    `workLatency needs 0 < p50Ms ≤ p99Ms, found ${p50Ms} / ${p99Ms}`,
  );
  check(isRate(config.flakyRate), `flakyRate must be between 0 and 1, found ${config.flakyRate}`);
  check(
    isRate(config.brokenEnvelopeRate),
    `brokenEnvelopeRate must be between 0 and 1, found ${config.brokenEnvelopeRate}`,
  );
  check(isRate(config.chaosRate), `chaosRate must be between 0 and 1, found ${config.chaosRate}`);
  check(
    config.tokenResponse === 'envelope' || config.tokenResponse === 'bare',
    `tokenResponse must be envelope or bare, found ${JSON.stringify(config.tokenResponse)}`,
  );
  check(isMs(config.addedLatencyMs), `addedLatencyMs must be a non-negative number, found ${config.addedLatencyMs}`);
  const capacityProblem = config.capacity === null ? null : serviceCapacityProblem(config.capacity);
  if (capacityProblem !== null) problems.push(capacityProblem);
  // The realm is quoted into WWW-Authenticate headers: no quotes, backslashes or control characters.
  check(
    /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(config.realm),
    'realm must be printable ASCII without quotes or backslashes',
  );
  check(
    isMs(config.headersTimeoutMs) && config.headersTimeoutMs > 0,
    `headersTimeoutMs must be positive, found ${config.headersTimeoutMs}`,
  );
  check(
    isMs(config.requestTimeoutMs) && config.requestTimeoutMs >= config.headersTimeoutMs,
    'requestTimeoutMs must be at least headersTimeoutMs',
  );
  check(isInt(config.seed, 0, 0xffff_ffff), `seed must be an integer 0–4294967295, found ${config.seed}`);
  check(
    isInt(config.replicas, 1, MAX_REPLICAS),
    `replicas must be an integer 1–${MAX_REPLICAS}, found ${config.replicas}`,
  );
  check(
    config.port === 0 || config.replicas === 1 || config.port + config.replicas <= 65_535,
    `port ${config.port} leaves no room for ${config.replicas} replica ports after it`,
  );
  check(
    (LIMITER_STORES as readonly string[]).includes(config.limiterStore),
    `limiterStore must be one of ${LIMITER_STORES.join(', ')}, found ${JSON.stringify(config.limiterStore)}`,
  );
  check(
    (STORE_OUTAGE_POLICIES as readonly string[]).includes(config.storeOutagePolicy),
    `storeOutagePolicy must be one of ${STORE_OUTAGE_POLICIES.join(', ')}, found ${JSON.stringify(config.storeOutagePolicy)}`,
  );
  check(config.storeFaultFile === null || config.storeFaultFile.length > 0, 'storeFaultFile must not be empty');

  if (problems.length > 0)
    throw new RpcloadError('bad_server_option', `invalid server options: ${problems.join('; ')}`);
  return config;
}
