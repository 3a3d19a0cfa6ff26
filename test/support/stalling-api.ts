import type { Socket } from 'node:net';
import { rawResponse, startRawServer, type RawRequest, type TestServer } from './http-server.ts';

/** What a hostile raw server does with one request (a token request or an API call). */
export type Behaviour = (request: RawRequest, socket: Socket) => void;

/** A well-formed token reply (enveloped), with `fields` merged into the token data. */
export const issueToken =
  (fields: Record<string, unknown> = {}): Behaviour =>
  (_request, socket) =>
    void socket.write(
      rawResponse(
        200,
        JSON.stringify({
          status: 'success',
          data: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600, ...fields },
        }),
      ),
    );

/** A success envelope for every call. */
export const answerSuccess: Behaviour = (_request, socket) =>
  void socket.write(rawResponse(200, '{"status":"success","data":{}}'));

/** Read the request and never answer (the socket stays open until the server closes). */
export const neverAnswer: Behaviour = () => undefined;

/** A response head promising 100 bytes, then one byte per second: each gap is short, the whole never ends. */
export const trickle: Behaviour = (_request, socket) => {
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n');
  const timer = setInterval(() => socket.write(' '), 1000);
  socket.on('close', () => clearInterval(timer));
};

/** A 2 GB body, written as fast as the client reads it. */
export const hugeBody: Behaviour = (_request, socket) => {
  socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2147483648\r\n\r\n');
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const pump = (): void => {
    while (!socket.destroyed && socket.write(chunk));
  };
  socket.on('drain', pump);
  pump();
};

/** Not HTTP at all. */
export const garbage: Behaviour = (_request, socket) => void socket.write('HELLO GARBAGE\r\n\r\n');

/** A 200 KB header block. */
export const hugeHeaders: Behaviour = (_request, socket) =>
  void socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(200_000)}\r\ncontent-length: 2\r\n\r\n{}`);

/** A 429 with the given Retry-After. */
export const refuseWithRetryAfter =
  (retryAfter: string): Behaviour =>
  (_request, socket) =>
    void socket.write(
      rawResponse(429, '{"status":"error","error":"rate_limit_exceeded"}', { 'retry-after': retryAfter }),
    );

/** A raw API server: `token` answers token requests (path ending in /auth.token), `api` everything else. */
export function startHostileApi(api: Behaviour, token: Behaviour = issueToken()): Promise<TestServer> {
  return startRawServer((request, socket) => (request.path.endsWith('/auth.token') ? token : api)(request, socket));
}

/** Requests the server saw on its token method / on API methods. */
export const tokenRequests = (server: TestServer): number =>
  server.seen.filter((r) => r.url.endsWith('/auth.token')).length;
export const apiRequests = (server: TestServer): number =>
  server.seen.filter((r) => !r.url.endsWith('/auth.token')).length;

/** Resolves once `condition` holds (polled every 20 ms); rejects after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
