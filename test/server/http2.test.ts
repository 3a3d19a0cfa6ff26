/**
 * The reference server over HTTP/2 (`serve --tls --http2`): node:http2 with ALPN, the same
 * conventions and limiter as over HTTP/1.1 — one quota across both protocols on one port — and
 * the replies HTTP/2 cannot carry as HTTP/1.1 does (a refused oversize body, a chaos reset) end
 * just their stream, never the connection or the server.
 */
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/server/options.ts';
import { call, startTestServer, tokenFor } from '../support/server-helpers.ts';

const sessions: ClientHttp2Session[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) session.destroy();
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

/** An HTTP/2 session to the server (ALPN h2), trusting its certificate. */
async function h2(server: ServerHandle): Promise<ClientHttp2Session> {
  const session = connect(server.url, { ca: server.certPem! });
  sessions.push(session);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

interface H2Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One POST as a stream of `session`; `error` when the stream was reset instead of answered. */
function post(
  session: ClientHttp2Session,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<H2Answer | { error: string }> {
  return new Promise((resolve) => {
    const stream = session.request({ ':method': 'POST', ':path': path, ...headers });
    let status = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    stream.end(body);
  });
}

async function h2Token(session: ClientHttp2Session, clientId: string): Promise<string> {
  const reply = (await post(
    session,
    '/api/auth.token',
    { 'content-type': 'application/x-www-form-urlencoded' },
    `grant_type=client_credentials&client_id=${clientId}&client_secret=demo-secret`,
  )) as H2Answer;
  return (JSON.parse(reply.body) as { data: { access_token: string } }).data.access_token;
}

const json = { 'content-type': 'application/json' };

describe('the reference server over HTTP/2', () => {
  it('negotiates h2 by ALPN and answers token requests and method calls with the envelope', async () => {
    const server = await startTestServer({ tls: true, http2: true });
    const session = await h2(server);
    expect(session.alpnProtocol).toBe('h2');
    const token = await h2Token(session, 'client-1');
    const pong = (await post(session, '/api/ping', { ...json, authorization: `Bearer ${token}` }, '{}')) as H2Answer;
    expect(pong.status).toBe(200);
    expect(JSON.parse(pong.body)).toEqual({ status: 'success', data: { pong: true } });
    const missing = (await post(session, '/api/ping', json, '{}')) as H2Answer;
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="rpcload"');
  });

  it('enforces one quota per client across many streams of one connection, and across HTTP/1.1 on the same port', async () => {
    const server = await startTestServer({ tls: true, http2: true, limit: 10, windowMs: 10_000 });
    const session = await h2(server);
    const token = await h2Token(session, 'client-q');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => post(session, '/api/ping', { ...json, authorization: `Bearer ${token}` }, '{}')),
    );
    expect(answers.map((a) => (a as H2Answer).status)).toEqual(Array(8).fill(200));
    // The same client over HTTP/1.1 (undici without h2) on the same port shares the quota: 2 left.
    const h1 = new Agent({ connect: { ca: server.certPem! } });
    agents.push(h1);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(server.url, 'ping', token, {}, { dispatcher: h1 })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(server.stats().byClient['client-q']).toEqual({ admitted: 10, refused: 1 });
  });

  it('refuses an oversize body with 400 payload_limit_exceeded on its stream; the connection carries on', async () => {
    const server = await startTestServer({ tls: true, http2: true, payloadLimitBytes: 1000 });
    const session = await h2(server);
    const token = await h2Token(session, 'client-p');
    const big = (await post(
      session,
      '/api/echo',
      { ...json, authorization: `Bearer ${token}` },
      JSON.stringify({ pad: 'x'.repeat(5000) }),
    )) as H2Answer;
    expect(big.status).toBe(400);
    expect(JSON.parse(big.body)).toEqual({ status: 'error', error: 'payload_limit_exceeded' });
    const after = (await post(session, '/api/ping', { ...json, authorization: `Bearer ${token}` }, '{}')) as H2Answer;
    expect(after.status).toBe(200);
  });

  it('a chaos reset ends only its stream', async () => {
    const server = await startTestServer({ tls: true, http2: true, faults: ['chaos-reset'], chaosRate: 1 });
    const session = await h2(server);
    const token = await h2Token(session, 'client-r');
    const reset = await post(session, '/api/ping', { ...json, authorization: `Bearer ${token}` }, '{}');
    expect(reset).toHaveProperty('error');
    expect(session.destroyed).toBe(false);
    // the same connection still answers token requests (chaos spares them)
    expect(await h2Token(session, 'client-r2')).toMatch(/\S{20,}/);
  });

  it('needs tls', async () => {
    await expect(startTestServer({ http2: true })).rejects.toThrow(/http2 needs tls/);
  });

  it('closes with HTTP/2 sessions open', async () => {
    const server = await startTestServer({ tls: true, http2: true });
    const session = await h2(server);
    await h2Token(session, 'client-c');
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('tokenFor over HTTP/1.1 against an HTTP/2 server', () => {
  it('works: clients that do not offer h2 get HTTP/1.1', async () => {
    const server = await startTestServer({ tls: true, http2: true });
    const h1 = new Agent({ connect: { ca: server.certPem! } });
    agents.push(h1);
    expect(await tokenFor(server.url, 'client-h1', 'demo-secret', { dispatcher: h1 })).toMatch(/\S{20,}/);
  });
});
