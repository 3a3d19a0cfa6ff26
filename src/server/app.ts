/**
 * The reference server's request handler: routes token requests and API method calls, passing each
 * call through auth, the rate limit and the payload checks.
 */
import { AssertionVerifier } from './auth/client-assertion.ts';
import { ClientRegistry } from './auth/clients.ts';
import { authenticateBearer, bearerRefusals } from './auth/bearer.ts';
import { handleTokenRequest, type TokenEndpointSettings } from './auth/token-endpoint.ts';
import { TokenStore } from './auth/token-store.ts';
import { acceptedPatterns, METHOD_NAME_PATTERN, type ServerConfig } from './resolved-config.ts';
import type { MethodHandler } from './methods/method.ts';
import { createMethodData, createMethods, type MethodData } from './methods/registry.ts';
import {
  isJsonContentType,
  parseJsonObject,
  readBody,
  TOO_LARGE,
  type ServerReply,
  type ServerRequest,
} from './payload.ts';
import type { Limiter } from './limiter/limiter.ts';
import type { StoreOutage } from './limiter/store-outage.ts';
import { createGateLimiter, RateGate } from './rate-gate.ts';
import {
  INVALID_ARGUMENTS,
  METHOD_NOT_ALLOWED,
  NOT_FOUND,
  PAYLOAD_LIMIT_EXCEEDED,
  SERVER_BUSY,
  textReply,
  UNEXPECTED_ERROR,
  UNSUPPORTED_MEDIA_TYPE,
  type Reply,
} from './reply.ts';
import { Responder } from './responder.ts';
import { ServiceCapacity } from './service-capacity.ts';
import { StatsRecorder } from './stats.ts';
import type { TimerSet } from './timers.ts';

const API_PREFIX = '/api/';

/** `payload-413-text`: the oversize refusal most frameworks send by default. */
const PAYLOAD_413_TEXT: Reply = { ...textReply(413, 'Payload Too Large'), close: true };

/**
 * State that replicas of one API share: the issued tokens (they stay valid on every replica and
 * across restarts, like signed tokens), the methods' data (orders, the cursor key: a database behind
 * them all), the server-side counters, and — with a shared store — the limiter; plus the switch
 * that takes the limiter's store down.
 */
export interface SharedState {
  readonly tokens: TokenStore;
  readonly data: MethodData;
  readonly stats: StatsRecorder;
  /** The limiter of a shared store; null = this app counts in its own memory. */
  readonly limiter: Limiter | null;
  readonly outage: StoreOutage | null;
}

/** The request handler and the state behind it (tokens, quotas, counters). */
export interface App {
  /** Serves HTTP/1.1 requests and, on an HTTP/2 server, its compatibility API's requests alike. */
  readonly handle: (req: ServerRequest, res: ServerReply) => void;
  readonly stats: StatsRecorder;
  readonly tokens: TokenStore;
  /** Forget expired tokens and idle quota state. */
  sweep(nowMs: number): void;
}

/** The API method named by a path, or how the request misses: `POST /api/{method}` only. */
export function routeOf(httpMethod: string | undefined, url: string | undefined): { readonly method: string } | Reply {
  const target = url ?? '/';
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (!path.startsWith(API_PREFIX)) return NOT_FOUND;
  if (httpMethod !== 'POST') return METHOD_NOT_ALLOWED;
  const method = path.slice(API_PREFIX.length);
  return METHOD_NAME_PATTERN.test(method) ? { method } : NOT_FOUND;
}

/**
 * Wire the server: routing, then for API methods auth → rate limit → Content-Type → body within
 * the payload limit → JSON object → method; any throw becomes 500 unexpected_error.
 */
export function createApp(
  config: ServerConfig,
  timers: TimerSet,
  now: () => number = Date.now,
  shared: SharedState = {
    tokens: new TokenStore(config.tokenTtlS * 1000),
    data: createMethodData(config),
    stats: new StatsRecorder(),
    limiter: null,
    outage: null,
  },
): App {
  const { stats, tokens } = shared;
  const gate = new RateGate(config, stats, shared.limiter ?? createGateLimiter(config), shared.outage);
  const responder = new Responder(config, stats, timers);
  const methods: ReadonlyMap<string, MethodHandler> = createMethods(config, shared.data);
  const refusals = bearerRefusals(config.realm, {
    forbidInsteadOfChallenge: config.faults.has('auth-403'),
    omitMissingChallenge: config.faults.has('auth-no-challenge'),
  });
  const payloadRefusal = config.faults.has('payload-413-text') ? PAYLOAD_413_TEXT : PAYLOAD_LIMIT_EXCEEDED;
  const tokenSettings: TokenEndpointSettings = {
    clients: new ClientRegistry(config.clients, acceptedPatterns(config)),
    tokens,
    tokenTtlS: config.tokenTtlS,
    payloadLimitBytes: config.payloadLimitBytes,
    realm: config.realm,
    shape: config.tokenResponse,
    assertions: config.clientKeys.length === 0 ? null : new AssertionVerifier(config.clientKeys),
    tokenMethod: config.tokenMethod,
  };
  const sleep = (delayMs: number): Promise<void> => timers.sleep(delayMs);
  const capacity = config.capacity === null ? null : new ServiceCapacity(config.capacity);

  async function callMethod(req: ServerRequest, method: string): Promise<Reply> {
    const auth = authenticateBearer(req.headers.authorization, tokens, refusals, now());
    if (!auth.ok) return auth.reply; // refused for auth: not counted against any quota
    const verdict = gate.admit({ clientId: auth.clientId, token: auth.token, method }, now());
    const refusal = verdict instanceof Promise ? await verdict : verdict;
    if (refusal !== undefined) return refusal;
    if (!isJsonContentType(req.headers['content-type'])) return UNSUPPORTED_MEDIA_TYPE;
    const body = await readBody(req, config.payloadLimitBytes);
    if (body === TOO_LARGE) return payloadRefusal;
    const args = parseJsonObject(body);
    if (args === undefined) return INVALID_ARGUMENTS;
    const handler = methods.get(method);
    if (handler === undefined) return NOT_FOUND;
    if (capacity !== null) {
      // Admitted calls queue for a worker of the capacity model (performance.now: sub-ms service times).
      const decision = capacity.admit(performance.now());
      if (decision.kind === 'shed') return SERVER_BUSY;
      await sleep(decision.delayMs);
    }
    return handler(args, { nowMs: now(), clientId: auth.clientId, sleep });
  }

  async function route(req: ServerRequest, res: ServerReply): Promise<void> {
    const target = routeOf(req.method, req.url);
    if (!('method' in target)) {
      responder.send(res, target, req.url?.startsWith(API_PREFIX) === true ? 'method' : 'other');
    } else if (target.method === config.tokenMethod) {
      const reply = await handleTokenRequest(req, tokenSettings, now);
      if (reply.status === 200) stats.tokenIssued();
      responder.send(res, reply, 'token');
    } else {
      responder.send(res, await callMethod(req, target.method), 'method');
    }
  }

  const handle = (req: ServerRequest, res: ServerReply): void => {
    stats.request();
    route(req, res).catch(() => responder.send(res, UNEXPECTED_ERROR, 'method'));
  };

  return {
    handle,
    stats,
    tokens,
    sweep(nowMs) {
      tokens.sweep(nowMs);
      gate.sweep(nowMs);
    },
  };
}
