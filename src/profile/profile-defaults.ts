/**
 * Every default of the profile format, in one place: the schema's descriptions and `default`
 * annotations quote these, and the plan builder applies them, so the two cannot disagree.
 * Durations are written as in a profile.
 */
export const PROFILE_DEFAULTS = {
  auth: { tokenMethod: 'auth.token', clientAuth: 'post', refreshMargin: '30s' },
  clients: { pattern: 'client-{n}', count: 10, start: 1, weight: 1 },
  scenario: { weight: 1 },
  step: { think: '0ms', maxPages: 10, onFail: 'stop' },
  data: { order: 'sequential', onEnd: 'wrap' },
  phase: { arrivals: 'uniform' },
  workload: { maxDuration: '10m', startAfter: '0s', name: 'default' },
  setup: { timeout: '30s' },
  rateLimit: { limit: 100, window: '10s', on429: 'honour' },
  http: {
    connections: 64,
    pipelining: 1,
    version: '1.1',
    maxConcurrentStreams: 100,
    connectTimeout: '10s',
    headersTimeout: '10s',
    bodyTimeout: '10s',
    idleTimeout: '4s',
    requestTimeout: '30s',
    bodyCapBytes: 1_048_576,
    maxResponseBytes: 16_777_216,
    maxInFlight: 10_000,
    insecure: false,
    preconnect: true,
    warmUp: true,
    client: 'rpcload',
    traceContext: 'always',
    traceSampleRatio: 0.01,
    traceBaggage: false,
  },
  // Mirrors the reference server's own defaults (ServerOptions), made explicit in the plan.
  server: {
    algorithm: 'fixed',
    tokenTtl: '1h',
    payloadLimitBytes: 100_000,
    itemCount: 1000,
    pageSize: 100,
    cursorTtl: '60s',
    workLatencyP50: '20ms',
    workLatencyP99: '200ms',
    flakyRate: 0.1,
    brokenEnvelopeRate: 0.2,
    chaosRate: 0.1,
    tokenResponse: 'envelope',
    addedLatency: '0ms',
    tls: false,
    http2: false,
  },
  checkpointEvery: '10s',
} as const;

/** The profile `npm start` runs, relative to the package root. */
export const DEFAULT_PROFILE = 'profiles/demo.json';

/** The profile `rpcload capacity` searches when none is named, relative to the package root. */
export const DEFAULT_CAPACITY_PROFILE = 'profiles/capacity.json';
