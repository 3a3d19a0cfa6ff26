/**
 * The reference server's interface: options, handle and stats. Every other module's tests start
 * the server through this interface, so changes here are deliberate.
 */
import type { ServiceCapacitySettings } from './service-capacity.ts';

/**
 * Limiter algorithms. All but `token-bucket` are conformant with "100 requests per 10 s":
 * - `fixed`          per-client fixed window that starts at the client's first request (default)
 * - `fixed-aligned`  fixed window aligned to the wall clock (resets at multiples of the window)
 * - `sliding`        exact sliding log of admitted request times
 * - `token-bucket`   capacity `limit`, refilled at limit/window per second: over-admits (a refilled
 *                    bucket plus a full burst exceeds `limit` in one window) — a known non-conformant
 *                    design the verifier must catch
 */
export const LIMITER_ALGORITHMS = ['fixed', 'fixed-aligned', 'sliding', 'token-bucket'] as const;
export type LimiterAlgorithm = (typeof LIMITER_ALGORITHMS)[number];

/**
 * Where replicas keep their rate-limit counts:
 * - `shared`  one store for every replica (like Redis): one quota per client across them all, and
 *             it survives a restart of the replicas
 * - `memory`  each replica counts in its own memory: a client gets `limit` per replica, and a
 *             restart hands out a fresh budget — the classic deployment bugs a verifier must catch
 */
export const LIMITER_STORES = ['shared', 'memory'] as const;
export type LimiterStore = (typeof LIMITER_STORES)[number];

/**
 * What the limiter does while its store is down: let every request through (`open`), or refuse
 * every request with 429 `rate_limit_exceeded` (`closed-429`) or 503 `unexpected_error` (`closed-503`).
 */
export const STORE_OUTAGE_POLICIES = ['open', 'closed-429', 'closed-503'] as const;
export type StoreOutagePolicy = (typeof STORE_OUTAGE_POLICIES)[number];

/**
 * One injectable defect. `convention` faults each break one rule of the conventions (the verify
 * check ids in `breaks` are expected to fail, all others to pass or skip); `chaos` faults make a
 * hostile or broken server (garbage, resets, huge or slow replies) that a load run must survive.
 */
export interface FaultSpec {
  readonly name: string;
  readonly kind: 'convention' | 'chaos';
  readonly description: string;
  /** The verify check ids expected to fail when only this fault is on. */
  readonly breaks: readonly string[];
}

export const FAULTS = [
  {
    name: 'limit-plus-one',
    kind: 'convention',
    description: 'admits limit+1 requests per window',
    breaks: ['ratelimit.threshold', 'ratelimit.all_methods', 'ratelimit.concurrent_burst'],
  },
  {
    name: 'limit-minus-one',
    kind: 'convention',
    description: 'admits limit-1 requests per window',
    breaks: ['ratelimit.threshold', 'ratelimit.all_methods'],
  },
  {
    name: 'retry-after-floor',
    kind: 'convention',
    description: 'Retry-After rounded down instead of up (a client that waits it out comes back too early)',
    breaks: ['ratelimit.retry_after_honoured'],
  },
  {
    name: 'retry-after-missing',
    kind: 'convention',
    description: '429 responses carry no Retry-After header',
    breaks: ['ratelimit.response'],
  },
  {
    name: '429-no-envelope',
    kind: 'convention',
    description: '429 responses have a text/plain body instead of the error envelope',
    breaks: ['ratelimit.response'],
  },
  {
    name: 'quota-per-token',
    kind: 'convention',
    description: 'quota counted per access token instead of per client ID',
    breaks: ['ratelimit.per_client'],
  },
  {
    name: 'quota-global',
    kind: 'convention',
    description: 'one quota shared by all clients',
    breaks: ['ratelimit.per_client'],
  },
  {
    name: 'quota-per-method',
    kind: 'convention',
    description: 'a separate quota for each method',
    breaks: ['ratelimit.all_methods'],
  },
  {
    name: 'racy-counter',
    kind: 'convention',
    description: 'check and increment split by an await, so a concurrent burst over-admits',
    breaks: ['ratelimit.concurrent_burst'],
  },
  {
    name: 'count-refused',
    kind: 'convention',
    description: 'refused requests count against the quota, so retrying while throttled extends the block',
    breaks: ['ratelimit.threshold'],
  },
  {
    name: 'payload-limit-wrong',
    kind: 'convention',
    description: 'enforces a payload limit of 65,536 bytes instead of 100 KB',
    breaks: ['payload.limit'],
  },
  {
    name: 'payload-413-text',
    kind: 'convention',
    description: 'oversize bodies get 413 with a text/plain body',
    breaks: ['payload.limit'],
  },
  {
    name: 'auth-403',
    kind: 'convention',
    description: 'unknown tokens get 403 without WWW-Authenticate',
    breaks: ['auth.invalid_token'],
  },
  {
    name: 'auth-no-challenge',
    kind: 'convention',
    description: 'missing credentials get 401 without WWW-Authenticate',
    breaks: ['auth.missing_token'],
  },
  {
    name: 'broken-envelope',
    kind: 'convention',
    description: 'a fraction (brokenEnvelopeRate, default 0.2) of success responses break the envelope',
    breaks: ['envelope'],
  },
  {
    name: 'pagination-empty-cursor',
    kind: 'convention',
    description: 'the last page has next: "" instead of null',
    breaks: ['pagination'],
  },
  {
    name: 'pagination-oversize',
    kind: 'convention',
    description: 'pages hold 150 items instead of at most 100',
    breaks: ['pagination'],
  },
  { name: 'tls-legacy', kind: 'convention', description: 'with --tls, also accepts TLS 1.0 and 1.1', breaks: ['tls'] },
  // Chaos: each hits a share (chaosRate, default 0.1) of API responses.
  {
    name: 'chaos-garbage',
    kind: 'chaos',
    description: 'replies 200 with random bytes as text/plain',
    breaks: ['envelope'],
  },
  { name: 'chaos-reset', kind: 'chaos', description: 'destroys the connection without a reply', breaks: [] },
  { name: 'chaos-huge', kind: 'chaos', description: 'replies with a 5 MiB success envelope', breaks: [] },
  { name: 'chaos-slow', kind: 'chaos', description: 'drips the reply out over ~3 s', breaks: [] },
  {
    name: 'chaos-escapes',
    kind: 'chaos',
    description: 'error envelopes whose code holds terminal escape sequences',
    breaks: [],
  },
  {
    name: 'chaos-html-502',
    kind: 'chaos',
    description: 'replies 502 with an HTML page, like a broken proxy',
    breaks: [],
  },
] as const satisfies readonly FaultSpec[];
export type FaultName = (typeof FAULTS)[number]['name'];
export const FAULT_NAMES: readonly FaultName[] = FAULTS.map((f) => f.name);

export interface ClientCredential {
  readonly id: string;
  readonly secret: string;
}

/** A client's public key for private_key_jwt: PEM (public key, certificate or private key) or a JWK as JSON text. */
export interface ClientPublicKey {
  readonly id: string;
  readonly key: string;
}

/** Everything optional; defaults follow the API conventions. */
export interface ServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Requests admitted per window per client. Default 100. */
  limit?: number;
  /** Window length in ms. Default 10,000. */
  windowMs?: number;
  /** Default `fixed`. */
  algorithm?: LimiterAlgorithm;
  /** Registered clients. */
  clients?: readonly ClientCredential[];
  /**
   * Demo only: accept any client ID starting with `prefix` with this one shared secret.
   * Used when no `clients` are given (prefix `client-`, secret `demo-secret`).
   */
  clientPattern?: { readonly prefix: string; readonly secret: string };
  /** Token request method name. Default `auth.token`. */
  tokenMethod?: string;
  /** Access token lifetime (`expires_in`), seconds. Default 3600. */
  tokenTtlS?: number;
  /** Max request body in bytes; exactly this many is accepted. Default 100,000. */
  payloadLimitBytes?: number;
  /** Size of the `items.list` data set. Default 1,000. */
  itemCount?: number;
  /** Default page size of `items.list`. Default 100. */
  pageSize?: number;
  /** Cursor lifetime in ms. Default 60,000. */
  cursorTtlMs?: number;
  /**
   * Most orders (`orders.*`) kept at once, all clients and replicas together; creating one more
   * forgets the oldest (as if deleted). Default 100,000.
   */
  maxOrders?: number;
  /** Latency model of `work`: log-normal with these percentiles (ms). Defaults 20 / 200. */
  workLatency?: { readonly p50Ms: number; readonly p99Ms: number };
  /** Failure rate of `flaky` (0..1). Default 0.1. */
  flakyRate?: number;
  /** Share of successes broken by the `broken-envelope` fault. Default 0.2. */
  brokenEnvelopeRate?: number;
  /** Share of API responses hit by each chaos fault that is on. Default 0.1. */
  chaosRate?: number;
  /** Token response shape: the envelope (default) or bare RFC 6749 JSON. */
  tokenResponse?: 'envelope' | 'bare';
  /** Extra latency added to every API response (ms), for regression tests. Default 0. */
  addedLatencyMs?: number;
  faults?: readonly FaultName[];
  /**
   * Service-capacity model (service-capacity.ts): API calls queue FIFO for `workers` servers and
   * the server sustains `ratePerS` calls per second; past it latency climbs (or, with
   * `maxQueueMs`, calls are shed with 503 server_busy). Default: none (no queueing).
   */
  capacity?: ServiceCapacitySettings;
  /** Serve HTTPS: true = self-signed certificate made at start; or PEM cert and key. */
  tls?: boolean | { readonly cert: string; readonly key: string };
  /** With `tls`: serve HTTP/2 (node:http2), and HTTP/1.1 to clients that do not offer h2 in ALPN. Default false. */
  http2?: boolean;
  /** With `tls`: require a client certificate signed by this CA (PEM) on every connection (mTLS). Default: none asked for. */
  clientCa?: string;
  /**
   * private_key_jwt: the public keys client assertions are verified with, by client id. A client
   * listed here may authenticate its token request with an assertion (besides any secret).
   */
  clientKeys?: readonly ClientPublicKey[];
  /** `realm` of WWW-Authenticate challenges. Default `rpcload`. */
  realm?: string;
  /** Slow-client guards (ms). Defaults 10,000 / 30,000. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Seed for the random parts (work latency, flaky, broken envelopes); default random. */
  seed?: number;
  /**
   * Replicas of the API, each on its own port, behind a round-robin front on `port` (the front is
   * the server's `url`). Default 1: one server, no front.
   */
  replicas?: number;
  /** Where the replicas keep their rate-limit counts. Default `shared`. */
  limiterStore?: LimiterStore;
  /** While this file exists, the limiter's store is down (see `storeOutagePolicy`). Default: none. */
  storeFaultFile?: string;
  /** What the limiter does while its store is down. Default `closed-503`. */
  storeOutagePolicy?: StoreOutagePolicy;
}

/** Server-side counts, so tests can check a client's numbers against the server's. */
export interface ServerStats {
  /** HTTP requests received, any path. */
  readonly requests: number;
  readonly tokensIssued: number;
  readonly byClient: Readonly<Record<string, { readonly admitted: number; readonly refused: number }>>;
  /** Responses by status code. */
  readonly byStatus: Readonly<Record<string, number>>;
}

export interface ServerHandle {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 (the round-robin front when there are replicas) */
  readonly url: string;
  readonly port: number;
  /** Each replica's own base URL, in order; empty for one server without replicas. */
  readonly replicaUrls: readonly string[];
  /** PEM certificate when serving TLS (tests trust it with `ca`). */
  readonly certPem?: string;
  stats(): ServerStats;
  /** Invalidate issued tokens (all, or one client's), to exercise 401 recovery. */
  revokeTokens(clientId?: string): void;
  /**
   * Restart every replica (the one server without replicas): close its connections and listen
   * again on the same port, its in-memory counts lost (a `shared` store and the tokens survive).
   */
  restart(): Promise<void>;
  /** Switch the limiter's store down or up (besides the fault file). */
  setStoreDown(down: boolean): void;
  /** Flip the store switch; returns whether the store is now down. */
  toggleStoreDown(): boolean;
  /** Stop accepting, finish in-flight requests briefly, then close. */
  close(): Promise<void>;
}

/** The same handle when the server runs in a worker thread (stats cross the thread boundary). */
export interface RemoteServerHandle {
  readonly url: string;
  readonly port: number;
  readonly certPem?: string;
  stats(): Promise<ServerStats>;
  revokeTokens(clientId?: string): Promise<void>;
  close(): Promise<void>;
}
