/**
 * A small API that follows the conventions (form-encoded token request, bearer tokens, the
 * envelope, 429 with Retry-After) and limits each client ID with rate-limiter-flexible's
 * RateLimiterRedis — the library under test, as an application would use it: ioredis without an
 * offline queue (the library's advice), optionally an in-memory insuranceLimiter. Several
 * instances share one Redis, behind a round-robin front; tokens are signed, so every instance
 * accepts them. A consume the limiter rejects with its result is a 429; one it rejects with an
 * error (Redis down, no insurance) is a 503 `unexpected_error`: the application cannot know more.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export interface RedisLimitedApiOptions {
  readonly redisPort: number;
  readonly instances: number;
  readonly limit: number;
  readonly windowS: number;
  /** An in-memory insuranceLimiter per instance, sharing the limit among the instances. */
  readonly insurance: boolean;
  readonly clients: readonly { readonly id: string; readonly secret: string }[];
}

export interface RedisLimitedApi {
  /** The round-robin front. */
  readonly url: string;
  readonly instanceUrls: readonly string[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

function listen(handler: Handler): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

export async function startRedisLimitedApi(options: RedisLimitedApiOptions): Promise<RedisLimitedApi> {
  const key = randomBytes(32);
  const sign = (clientId: string): string =>
    `${Buffer.from(clientId).toString('base64url')}.${createHmac('sha256', key).update(clientId).digest('base64url')}`;
  const verify = (token: string): string | null => {
    const [id, mac] = token.split('.');
    if (id === undefined || mac === undefined) return null;
    const clientId = Buffer.from(id, 'base64url').toString();
    const expected = Buffer.from(sign(clientId).split('.')[1]!);
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given) ? clientId : null;
  };
  const redisClients: Redis[] = [];

  const instance = (): Handler => {
    const redis = new Redis({
      port: options.redisPort,
      host: '127.0.0.1',
      enableOfflineQueue: false,
      retryStrategy: () => 100,
      maxRetriesPerRequest: 1,
    });
    redis.on('error', () => undefined); // a stopped Redis is this test's business, not a crash
    redisClients.push(redis);
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'rpcload-test',
      points: options.limit,
      duration: options.windowS,
      ...(options.insurance
        ? {
            insuranceLimiter: new RateLimiterMemory({
              points: Math.ceil(options.limit / options.instances),
              duration: options.windowS,
            }),
          }
        : {}),
    });
    return (req, res) => {
      void (async () => {
        const method = /^\/api\/([\w.-]+)$/.exec(req.url ?? '')?.[1];
        if (req.method !== 'POST' || method === undefined)
          return reply(res, 404, { status: 'error', error: 'not_found' });
        const body = await readBody(req);
        if (method === 'auth.token') {
          const form = new URLSearchParams(body);
          const client = options.clients.find(
            (c) => c.id === form.get('client_id') && c.secret === form.get('client_secret'),
          );
          if (form.get('grant_type') !== 'client_credentials' || client === undefined)
            return reply(res, 401, { error: 'invalid_client' });
          return reply(res, 200, {
            status: 'success',
            data: { access_token: sign(client.id), token_type: 'Bearer', expires_in: 3600 },
          });
        }
        const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
        const clientId = token === undefined ? null : verify(token);
        if (clientId === null)
          return reply(
            res,
            401,
            { status: 'error', error: 'unauthorized' },
            {
              'www-authenticate':
                token === undefined ? 'Bearer realm="redis-api"' : 'Bearer realm="redis-api", error="invalid_token"',
            },
          );
        try {
          await limiter.consume(clientId);
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes)
            return reply(
              res,
              429,
              { status: 'error', error: 'rate_limit_exceeded' },
              { 'retry-after': String(Math.ceil(rejection.msBeforeNext / 1000)) },
            );
          return reply(res, 503, { status: 'error', error: 'unexpected_error' });
        }
        return reply(res, 200, { status: 'success', data: { method } });
      })().catch(() => reply(res, 500, { status: 'error', error: 'unexpected_error' }));
    };
  };

  const handlers = Array.from({ length: options.instances }, instance);
  const servers = await Promise.all(handlers.map(listen));
  let next = 0;
  const front = await listen((req, res) => handlers[next++ % handlers.length]!(req, res));
  return {
    url: urlOf(front),
    instanceUrls: servers.map(urlOf),
    close: async () => {
      for (const server of [front, ...servers]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      for (const redis of redisClients) redis.disconnect();
    },
  };
}
