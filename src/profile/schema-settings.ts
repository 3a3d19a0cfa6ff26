/**
 * Profile sections that configure how load is sent rather than what is sent: auth, rate-limit
 * contract, HTTP transport and the embedded server. Every field is optional; each description
 * states its default (editors show these).
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { ASSERTION_ALGS } from '../api/client-assertion.ts';
import { FAULTS, LIMITER_ALGORITHMS } from '../server/options.ts';
import { HTTP_CLIENT_ALIASES, HTTP_CLIENTS } from './http-clients.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';

/** A W3C tracestate list: 1 to 32 key=value members, keys lowercase, values printable without ',' and '='. */
const TRACESTATE_PATTERN =
  '^[a-z0-9][a-z0-9_*/@-]{0,255}=[ -+\\--<>-~]{0,255}(,[a-z0-9][a-z0-9_*/@-]{0,255}=[ -+\\--<>-~]{0,255}){0,31}$';

const DURATION_HINT = 'A duration like "500ms", "10s" or "1m30s" (a bare number is seconds), at most 7 days.';

/** A duration string; parsed and range-checked by the plan builder. */
export function DurationSchema(description: string, defaultValue?: string) {
  return Type.String({
    description: `${description} ${DURATION_HINT}${defaultValue === undefined ? '' : ` Default "${defaultValue}".`}`,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  });
}

/** An object whose properties are all optional and whose unknown properties are errors. */
export function OptionalFields<T extends TProperties>(properties: T, description: string) {
  return Type.Partial(Type.Object(properties, { additionalProperties: false, description }));
}

function Int(minimum: number, description: string, defaultValue: number) {
  return Type.Integer({ minimum, default: defaultValue, description: `${description} Default ${defaultValue}.` });
}

function Fraction(description: string, defaultValue: number) {
  return Type.Number({
    minimum: 0,
    maximum: 1,
    default: defaultValue,
    description: `${description} 0..1. Default ${defaultValue}.`,
  });
}

export { HTTP_CLIENTS };

export function Literals<const T extends string>(values: readonly T[], description: string, defaultValue: T) {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    { default: defaultValue, description: `${description} One of ${values.join(', ')}. Default "${defaultValue}".` },
  );
}

export const AuthSchema = OptionalFields(
  {
    tokenMethod: Type.String({
      minLength: 1,
      default: D.auth.tokenMethod,
      description: `Token request method, sent form-encoded as POST {target}/api/{tokenMethod} (a method name like any other). Default "${D.auth.tokenMethod}".`,
    }),
    clientAuth: Literals(
      ['post', 'basic', 'private_key_jwt'],
      "How the client authenticates the token request: client_secret_post (id and secret as form fields), client_secret_basic (HTTP Basic) or private_key_jwt (a JWT signed with the client's private key, RFC 7523: clients.list[].privateKey or clients.privateKeyPattern).",
      D.auth.clientAuth,
    ),
    assertionAlg: Type.Union(
      ASSERTION_ALGS.map((alg) => Type.Literal(alg)),
      {
        description:
          "private_key_jwt: the assertion's signature algorithm, one of RS256, PS256 (RSA keys), ES256 (P-256 keys). Default: a JWK's own alg, else RS256 for RSA keys and ES256 for P-256 keys.",
      },
    ),
    scope: Type.String({ description: 'OAuth scope sent with the token request. Default: none.' }),
    extraFields: Type.Record(Type.String(), Type.String(), {
      description: 'Extra form fields of the token request. Default: none.',
    }),
    refreshMargin: DurationSchema('Refresh a token this long before its expires_in runs out.', D.auth.refreshMargin),
  },
  'How clients obtain access tokens.',
);

export const RateLimitSchema = OptionalFields(
  {
    limit: Int(
      1,
      'Requests admitted per client per window (the contract the run is measured against).',
      D.rateLimit.limit,
    ),
    window: DurationSchema('Rate-limit window.', D.rateLimit.window),
    on429: Literals(
      ['honour', 'ignore'],
      'Policy on a 429: honour = pause that client until its Retry-After has passed (arrivals go to other clients meanwhile); ignore = keep sending.',
      D.rateLimit.on429,
    ),
  },
  'The per-client rate-limit contract and how the driver reacts to a 429.',
);

export const HttpSchema = OptionalFields(
  {
    connections: Int(
      1,
      'Connections per origin (keep-alive pool). With per-client certificates they are shared out over the clients, at least one each.',
      D.http.connections,
    ),
    pipelining: Int(1, 'HTTP/1.1 pipelining depth per connection.', D.http.pipelining),
    version: Literals(
      ['1.1', '2', 'auto'],
      'HTTP version: 1.1; 2 = HTTP/2 required (negotiated with TLS ALPN, so an https target; a target that does not offer h2 is an error before the run); auto = whatever the server offers.',
      D.http.version,
    ),
    maxConcurrentStreams: Int(
      1,
      'HTTP/2: requests in flight at once on one connection (streams); more wait for a free stream.',
      D.http.maxConcurrentStreams,
    ),
    connectTimeout: DurationSchema('Connect timeout.', D.http.connectTimeout),
    headersTimeout: DurationSchema('Time allowed until the response headers arrive.', D.http.headersTimeout),
    bodyTimeout: DurationSchema('Time allowed between body chunks.', D.http.bodyTimeout),
    idleTimeout: DurationSchema(
      'Close a keep-alive connection idle this long, before the server closes it under a request ' +
        "(a server's `Keep-Alive: timeout=N` hint lowers it to N − 2 s). A request that still meets a closed " +
        'connection, failing before any byte of its reply, is sent once more on a new one (staleConnectionRetries).',
      D.http.idleTimeout,
    ),
    requestTimeout: DurationSchema(
      'Overall deadline of every request (API calls and token requests), from sending to the last byte of the reply: a reply still incomplete then ends as transport:timeout.',
      D.http.requestTimeout,
    ),
    bodyCapBytes: Int(1, 'Response bytes kept for parsing; the rest is read and discarded.', D.http.bodyCapBytes),
    maxResponseBytes: Int(
      1,
      'A response body longer than this is cut off and counted as transport:body_too_large.',
      D.http.maxResponseBytes,
    ),
    maxInFlight: Int(
      1,
      'Open model: arrivals beyond this many requests in flight are skipped (and counted).',
      D.http.maxInFlight,
    ),
    ca: Type.String({
      minLength: 1,
      description:
        'Extra CA certificate to trust: a PEM file path (relative to the profile) or inline PEM. Default: none.',
    }),
    insecure: Type.Boolean({
      default: D.http.insecure,
      description: `Skip TLS certificate verification. Default ${D.http.insecure}.`,
    }),
    cert: Type.String({
      minLength: 1,
      description:
        'Client certificate (mTLS) presented to the target, for token requests and API calls: a PEM file path (relative to the profile) or inline PEM; the file may hold the private key too. Per-client certificates (clients.list[].cert, clients.certPattern) take precedence. Default: none.',
    }),
    key: Type.String({
      minLength: 1,
      description: 'Private key of `cert`: a PEM file path or inline PEM. Default: the key in the cert file.',
    }),
    pfx: Type.String({
      minLength: 1,
      description:
        'Client certificate and key as a PKCS#12 (.pfx/.p12) file path, instead of cert and key. Default: none.',
    }),
    keyPassphrase: Type.String({
      description:
        'Passphrase of encrypted client certificate keys (and PKCS#12 files). Write it as "${ENV_VAR}". Default: none.',
    }),
    preconnect: Type.Boolean({
      default: D.http.preconnect,
      description: `Open every connection before the clock starts (as wrk and autocannon do), so connection set-up never counts as schedule lag or latency; false = connect lazily as requests need them. Default ${D.http.preconnect}.`,
    }),
    warmUp: Type.Boolean({
      default: D.http.warmUp,
      description: `Before the clock starts, run the scenarios for a moment against an in-process responder (never the target), so the first second is not measured on unoptimized code. Default ${D.http.warmUp}.`,
    }),
    client: Type.Union(
      [...HTTP_CLIENTS, ...Object.keys(HTTP_CLIENT_ALIASES)].map((name) => Type.Literal(name)),
      {
        default: D.http.client,
        description:
          "HTTP client of the load's API calls: rpcload = rpcload's own clients (its HTTP/1.1 keep-alive client; " +
          "sessions of Node's http2 module on HTTP/2), less CPU per request; undici = undici's Client. " +
          `"fast" is accepted as rpcload's former name. Token requests use Node's HTTP/1.1 client (undici over HTTP/2), verify undici. ` +
          `Default "${D.http.client}".`,
      },
    ),
    traceContext: Literals(
      ['always', 'sampled', 'off'],
      'W3C traceparent on every request (always), only on the sampled share of traces (sampled), or none (off). Iterations share a trace id, each request is a span; see docs/tracing.md.',
      D.http.traceContext,
    ),
    traceSampleRatio: Fraction(
      'Share of traces sent with the sampled flag, picked deterministically from the trace id.',
      D.http.traceSampleRatio,
    ),
    tracestate: Type.String({
      pattern: TRACESTATE_PATTERN,
      description: 'A W3C tracestate value (e.g. "vendor=value") sent with every traceparent. Default: none.',
    }),
    traceBaggage: Type.Boolean({
      default: D.http.traceBaggage,
      description: `Send a W3C baggage header with the run id (rpcload.run=<id>) on every request. Default ${D.http.traceBaggage}.`,
    }),
  },
  'HTTP transport settings.',
);

const S = D.server;
export const ServerSchema = OptionalFields(
  {
    limit: Type.Integer({
      minimum: 1,
      description: 'Requests admitted per client per window. Default: rateLimit.limit.',
    }),
    window: DurationSchema('Rate-limit window. Default: rateLimit.window.'),
    algorithm: Literals(
      LIMITER_ALGORITHMS,
      'Limiter algorithm (token-bucket is deliberately non-conformant).',
      S.algorithm,
    ),
    faults: Type.Array(
      Type.Union(FAULTS.map((fault) => Type.Literal(fault.name, { description: fault.description }))),
      {
        description: 'Injected defects (see `rpcload serve --help`). Default: none.',
      },
    ),
    workLatency: OptionalFields(
      {
        p50: DurationSchema('Median latency of `work`.', S.workLatencyP50),
        p99: DurationSchema('99th percentile latency of `work`.', S.workLatencyP99),
      },
      'Log-normal latency model of the `work` method.',
    ),
    flakyRate: Fraction('Failure rate of `flaky`.', S.flakyRate),
    brokenEnvelopeRate: Fraction('Share of successes broken by the broken-envelope fault.', S.brokenEnvelopeRate),
    chaosRate: Fraction('Share of responses hit by each chaos fault that is on.', S.chaosRate),
    itemCount: Int(0, 'Size of the items.list data set.', S.itemCount),
    pageSize: Int(1, 'Page size of items.list.', S.pageSize),
    cursorTtl: DurationSchema('Pagination cursor lifetime.', S.cursorTtl),
    tokenTtl: DurationSchema('Access token lifetime (expires_in), whole seconds.', S.tokenTtl),
    tokenResponse: Literals(
      ['envelope', 'bare'],
      'Token response shape: the envelope or bare RFC 6749 JSON.',
      S.tokenResponse,
    ),
    payloadLimitBytes: Int(1, 'Largest accepted request body in bytes.', S.payloadLimitBytes),
    addedLatency: DurationSchema('Extra latency added to every API response.', S.addedLatency),
    tls: Type.Boolean({
      default: S.tls,
      description: `Serve HTTPS with a self-signed certificate made at start. Default ${S.tls}.`,
    }),
    http2: Type.Boolean({
      default: S.http2,
      description: `With tls: serve HTTP/2 (and HTTP/1.1 to clients that do not offer h2). Default ${S.http2}.`,
    }),
    capacity: Type.Object(
      {
        rate: Type.Number({ exclusiveMinimum: 0, description: 'API calls per second the server sustains.' }),
        workers: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: 10_000,
            description: 'Parallel workers (service time = workers / rate). Default 4.',
          }),
        ),
        maxQueue: Type.Optional(
          DurationSchema('Shed calls (503 server_busy) that would queue longer than this. Default: never shed.'),
        ),
      },
      {
        additionalProperties: false,
        description:
          'Service-capacity model: calls queue FIFO for the workers, so latency climbs past `rate` (a known knee for `rpcload capacity`). Default: none.',
      },
    ),
  },
  "Settings of the embedded reference server, used only when there is no target. Its clients are the profile's clients.",
);

export type AuthSettings = Static<typeof AuthSchema>;
export type RateLimitSettings = Static<typeof RateLimitSchema>;
export type HttpSettings = Static<typeof HttpSchema>;
export type ServerSettings = Static<typeof ServerSchema>;
