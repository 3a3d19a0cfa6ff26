import { connect } from 'node:net';
import type { Readable } from 'node:stream';
import { afterEach } from 'vitest';
import { request, type Dispatcher } from 'undici';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle, ServerOptions } from '../../src/server/options.ts';

/** Servers started by the current test, closed after it whatever happened. */
const started: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

/** Start a server on 127.0.0.1:0 that is closed after the test. */
export async function startTestServer(options: ServerOptions = {}): Promise<ServerHandle> {
  const server = await startServer(options);
  started.push(server);
  return server;
}

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface PostOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer | Readable;
  readonly method?: Dispatcher.HttpMethod;
  readonly dispatcher?: Dispatcher;
  readonly signal?: AbortSignal;
}

async function answer(response: Dispatcher.ResponseData): Promise<Answer> {
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** Send one request and read the whole answer. */
export async function send(url: string, options: PostOptions = {}): Promise<Answer> {
  return answer(
    await request(url, {
      method: options.method ?? 'POST',
      headers: options.headers,
      body: options.body,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
  );
}

/** Call an API method with a bearer token and a JSON body. */
export function call(
  baseUrl: string,
  method: string,
  token: string | undefined,
  args: unknown = {},
  options: PostOptions = {},
): Promise<Answer> {
  return send(`${baseUrl}/api/${method}`, {
    ...options,
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...options.headers,
    },
    body: options.body ?? JSON.stringify(args),
  });
}

/** Request a token by client_secret_post (the demo pattern accepts any `client-…` ID). */
export function requestToken(
  baseUrl: string,
  form: Readonly<Record<string, string>>,
  options: PostOptions & { tokenMethod?: string } = {},
): Promise<Answer> {
  return send(`${baseUrl}/api/${options.tokenMethod ?? 'auth.token'}`, {
    ...options,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** A fresh access token for `clientId` (demo secret unless given). */
export async function tokenFor(
  baseUrl: string,
  clientId: string,
  secret = 'demo-secret',
  options: PostOptions & { tokenMethod?: string } = {},
): Promise<string> {
  const reply = await requestToken(
    baseUrl,
    { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
    options,
  );
  const token = (reply.json as { data?: { access_token?: unknown } } | undefined)?.data?.access_token;
  if (reply.status !== 200 || typeof token !== 'string')
    throw new Error(`token request failed: ${reply.status} ${reply.text}`);
  return token;
}

/** Fire `count` calls at once and return their statuses in send order. */
export async function burst(baseUrl: string, method: string, token: string, count: number): Promise<number[]> {
  const answers = await Promise.all(Array.from({ length: count }, () => call(baseUrl, method, token)));
  return answers.map((a) => a.status);
}

/** Fire calls one after another and return their answers. */
export async function sequence(baseUrl: string, method: string, token: string, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await call(baseUrl, method, token));
  return answers;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sleep until `offsetMs` past the next wall-clock multiple of `windowMs` (fixed-aligned resets). */
export async function untilWallClock(offsetMs: number, windowMs: number): Promise<void> {
  const waitMs = (offsetMs - (Date.now() % windowMs) + windowMs) % windowMs;
  await sleep(waitMs < 50 ? waitMs + windowMs : waitMs);
}

/** Make sure at least `marginMs` are left in the current wall-clock window, waiting for the next if not. */
export async function withRoomInAlignedWindow(windowMs: number, marginMs: number): Promise<void> {
  const leftMs = windowMs - (Date.now() % windowMs);
  if (leftMs < marginMs) await sleep(leftMs + 50);
}

/** Count of each value in a list, e.g. statuses → { 200: 10, 429: 1 }. */
export function tally(values: readonly (string | number)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

/**
 * Write raw bytes to the server over TCP and collect everything it sends back until it closes
 * the connection (or `timeoutMs` passes, then the socket is destroyed). `keepOpen`: do not end
 * our side after writing (a client still "sending").
 */
export function rawRoundTrip(
  port: number,
  payload: string | Buffer,
  options: { keepOpen?: boolean; timeoutMs?: number } = {},
): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer: false });
    }, options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after the server answered still counts as the server closing.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer: true });
    });
    socket.write(payload, () => {
      if (options.keepOpen !== true) socket.end();
    });
  });
}
