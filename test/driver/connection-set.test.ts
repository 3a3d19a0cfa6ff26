import type { ServerResponse } from 'node:http';
import {
  constants as h2constants,
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerResponse,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { buildConnector } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionSet, connectionClient, type ConnectionRequest } from '../../src/driver/connection-set.ts';
import type { RequestHead } from '../../src/driver/request-head.ts';
import { selfSignedMaterial } from '../../src/server/tls.ts';
import { HTTP_CLIENTS } from '../../src/profile/schema-settings.ts';
import { sendJson, startScriptedServer, type TestServer } from '../support/http-server.ts';

/** Each `http.client` as the set takes it (undici's Client loaded as a run that chooses it loads it). */
const CONNECTION_CLIENTS = {
  rpcload: await connectionClient('rpcload'),
  undici: await connectionClient('undici'),
};

/** A request that records how it ended; `ended` resolves then. */
class TestRequest implements ConnectionRequest {
  connection = -1;
  lane = 0;
  status = 0;
  error: Error | null = null;
  readonly ended: Promise<void>;
  resends = 0;
  private end!: () => void;
  readonly head: RequestHead;

  constructor(
    readonly name: string,
    private readonly onEnd: (request: TestRequest) => void,
    head: Partial<RequestHead> = {},
  ) {
    const headers = ['content-type', 'application/json'];
    this.head = { path: `/api/${name}`, method: 'POST', headers, traceparent: null, body: Buffer.from('{}'), ...head };
    this.ended = new Promise((resolve) => (this.end = resolve));
  }

  onRequestSent(): void {}
  onResponseHead(status: number): void {
    this.status = status;
  }
  onResponseData(): void {}
  onResponseEnd(): void {
    this.onEnd(this);
    this.end();
  }
  onResend(): void {
    this.resends++;
  }
  onRequestError(error: Error): void {
    this.error = error;
    this.onEnd(this);
    this.end();
  }
}

let server: TestServer | undefined;
let set: ConnectionSet | undefined;
afterEach(async () => {
  await set?.destroy();
  await server?.close();
  set = server = undefined;
});

describe.each(HTTP_CLIENTS)('ConnectionSet on the %s client', (client) => {
  const newSet = (origin: string, connections: number, pipelining = 1): ConnectionSet =>
    new ConnectionSet(origin, {
      lanes: [{ connections, connect: buildConnector({}) }],
      slots: pipelining,
      allowH2: false,
      headersTimeoutMs: 5000,
      bodyTimeoutMs: 5000,
      idleTimeoutMs: 4000,
      client: CONNECTION_CLIENTS[client],
    });

  it('carries requests on at most `connections` sockets; the rest wait and go in arrival order', async () => {
    const held: ServerResponse[] = [];
    server = await startScriptedServer((_req, res) => held.push(res));
    const connections = newSet(server.url, 2);
    set = connections;
    const order: string[] = [];
    const requests = ['a', 'b', 'c', 'd', 'e'].map(
      (name) =>
        new TestRequest(name, (r) => {
          order.push(r.name);
          connections.release(r);
        }),
    );
    for (const r of requests) connections.dispatch(r);
    expect(connections.queued).toBe(3);
    await expect.poll(() => held.length).toBe(2);
    // Answer one at a time: each answer frees a connection for the oldest waiting request.
    for (let answered = 0; answered < 5; answered++) {
      await expect.poll(() => held.length).toBeGreaterThan(0);
      sendJson(held.shift()!, 200, { status: 'success', data: {} });
      await requests[answered]!.ended;
    }
    expect(order).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(server.seen.map((s) => s.url)).toEqual(['/api/a', '/api/b', '/api/c', '/api/d', '/api/e']);
    expect(server.connections()).toBe(2);
    expect(connections.queued).toBe(0);
  });

  it('reuses the connection freed last, so a light load does not open connections it does not need', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { status: 'success', data: {} }));
    const connections = newSet(server.url, 8);
    set = connections;
    for (let i = 0; i < 10; i++) {
      const r = new TestRequest(`one-${i}`, (done) => connections.release(done));
      connections.dispatch(r);
      await r.ended;
      expect(r.status).toBe(200);
    }
    expect(server.connections()).toBe(1);
  });

  it('gives each connection `pipelining` slots', async () => {
    const held: ServerResponse[] = [];
    server = await startScriptedServer((_req, res) => held.push(res));
    const connections = newSet(server.url, 1, 3);
    set = connections;
    const requests = ['a', 'b', 'c', 'd'].map((name) => new TestRequest(name, (r) => connections.release(r)));
    for (const r of requests) connections.dispatch(r);
    expect(connections.queued).toBe(1);
    await expect.poll(() => held.length).toBeGreaterThan(0);
    expect(server.connections()).toBe(1);
  });

  it('sends one request head: a Content-Length for an empty PROPFIND, the traceparent after the list', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { status: 'success', data: {} }));
    const connections = newSet(server.url, 1);
    set = connections;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const head = { method: 'PROPFIND', body: Buffer.alloc(0), traceparent };
    const r = new TestRequest('head', (done) => connections.release(done), head);
    connections.dispatch(r);
    await r.ended;
    expect(r.status).toBe(200);
    const seen = server.seen[0]!;
    expect(seen.method).toBe('PROPFIND');
    expect(seen.headers['content-length']).toBe('0');
    expect(seen.headers.traceparent).toBe(traceparent);
  });

  it('ends requests on a closed set with an error, and drops the waiting ones', async () => {
    server = await startScriptedServer(() => undefined); // never answers
    const connections = newSet(server.url, 1);
    set = connections;
    const onWire = new TestRequest('a', (r) => connections.release(r));
    const waiting = new TestRequest('b', (r) => connections.release(r));
    connections.dispatch(onWire);
    connections.dispatch(waiting);
    await expect.poll(() => server!.seen.length).toBe(1);
    await connections.destroy();
    await onWire.ended;
    expect(onWire.error).not.toBeNull();
    expect(connections.queued).toBe(0);
    const late = new TestRequest('c', (r) => connections.release(r));
    connections.dispatch(late);
    await late.ended;
    expect(late.error?.message).toMatch(/closed/);
  });
});

describe.each(HTTP_CLIENTS)('ConnectionSet over HTTP/2 (node:http2 server, ALPN) on the %s client', (client) => {
  let h2: Http2SecureServer | undefined;
  afterEach(async () => {
    // The client side first: the server's close waits for its sessions to end.
    await set?.destroy();
    set = undefined;
    const closing = h2;
    h2 = undefined;
    if (closing !== undefined) await new Promise((resolve) => closing.close(resolve));
  });

  /** An HTTP/2 server that holds every stream until told; counts sessions and the most streams open at once. */
  async function startHolding(): Promise<{
    url: string;
    held: Http2ServerResponse[];
    sessions: () => number;
    peakStreams: () => number;
    ca: string;
  }> {
    const material = await selfSignedMaterial();
    const held: Http2ServerResponse[] = [];
    let sessions = 0;
    let open = 0;
    let peak = 0;
    h2 = createSecureServer({ cert: material.cert, key: material.key, allowHTTP1: false }, (req, res) => {
      open++;
      peak = Math.max(peak, open);
      res.once('finish', () => open--);
      req.resume();
      req.once('end', () => held.push(res));
    });
    h2.on('session', () => sessions++);
    await new Promise<void>((resolve) => h2!.listen(0, '127.0.0.1', resolve));
    return {
      url: `https://127.0.0.1:${(h2.address() as AddressInfo).port}`,
      held,
      sessions: () => sessions,
      peakStreams: () => peak,
      ca: material.cert,
    };
  }

  const h2Set = (url: string, ca: string, lanes: number, slots: number): ConnectionSet =>
    new ConnectionSet(url, {
      lanes: Array.from({ length: lanes }, () => ({ connections: 1, connect: buildConnector({ ca, allowH2: true }) })),
      slots,
      allowH2: true,
      headersTimeoutMs: 5000,
      bodyTimeoutMs: 5000,
      idleTimeoutMs: 4000,
      client: CONNECTION_CLIENTS[client],
    });

  it('carries `slots` requests at once as streams of one connection; the rest wait for a free stream', async () => {
    const server2 = await startHolding();
    const connections = h2Set(server2.url, server2.ca, 1, 4);
    set = connections;
    const requests = Array.from({ length: 6 }, (_, i) => new TestRequest(`s${i}`, (r) => connections.release(r)));
    for (const r of requests) connections.dispatch(r);
    await expect.poll(() => server2.held.length).toBe(4);
    expect(connections.queued).toBe(2);
    expect(server2.sessions()).toBe(1); // four POSTs in flight at once on one connection
    for (let answered = 0; answered < 6; answered++) {
      await expect.poll(() => server2.held.length).toBeGreaterThan(0);
      server2.held.shift()!.end('{"status":"success","data":{}}');
    }
    await Promise.all(requests.map((r) => r.ended));
    expect(requests.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(server2.peakStreams()).toBe(4);
    expect(server2.sessions()).toBe(1);
  });

  it('sends the head as HTTP/1.1 does: Content-Length for the methods undici gives one, traceparent', async () => {
    const server2 = await startHolding();
    const connections = h2Set(server2.url, server2.ca, 1, 8);
    set = connections;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const methods = ['POST', 'PUT', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH', 'DELETE'];
    const EMPTY = Buffer.alloc(0);
    const release = (r: TestRequest): void => connections.release(r);
    const requests = methods.map((method) => new TestRequest(method, release, { method, body: EMPTY, traceparent }));
    for (const r of requests) connections.dispatch(r);
    await expect.poll(() => server2.held.length).toBe(methods.length);
    const heads = server2.held.map((res) => res.req.headers);
    for (const res of server2.held.splice(0)) res.end('{}');
    await Promise.all(requests.map((r) => r.ended));
    const lengths = Object.fromEntries(heads.map((h) => [String(h[':method']), h['content-length']]));
    // rpcload's sessions: the six methods of undici's HTTP/1.1 encoder and rpcload's (they sent it for
    // POST, PUT and PATCH only, before). undici's own HTTP/2 client keeps its list of three, which
    // no adapter can change: it builds the head itself.
    const rpcload = client === 'rpcload' ? '0' : undefined;
    const sent = { POST: '0', PUT: '0', PATCH: '0', QUERY: rpcload, PROPFIND: rpcload, PROPPATCH: rpcload };
    expect(lengths).toEqual({ ...sent, DELETE: undefined });
    expect(heads.map((h) => h.traceparent)).toEqual(methods.map(() => traceparent));
  });

  it('gives each lane connections of its own', async () => {
    const server2 = await startHolding();
    const connections = h2Set(server2.url, server2.ca, 2, 4);
    set = connections;
    const requests = [0, 1, 0, 1].map((lane, i) =>
      Object.assign(new TestRequest(`l${i}`, (r) => connections.release(r)), { lane }),
    );
    for (const r of requests) connections.dispatch(r);
    await expect.poll(() => server2.held.length).toBe(4);
    expect(server2.sessions()).toBe(2);
    for (const res of server2.held.splice(0)) res.end('{}');
    await Promise.all(requests.map((r) => r.ended));
  });
});

/**
 * What rpcload's own HTTP/2 connection (http2/http2-connection.ts) does where undici's crashes or
 * would resend: a GOAWAY with streams in flight, a refused stream, a reset, a silent server.
 */
describe("ConnectionSet over HTTP/2 on rpcload's client: GOAWAY, refused and reset streams, timeouts", () => {
  let h2: Http2SecureServer | undefined;
  afterEach(async () => {
    await set?.destroy();
    set = undefined;
    const closing = h2;
    h2 = undefined;
    if (closing !== undefined) await new Promise((resolve) => closing.close(resolve));
  });

  /** An HTTP/2 server answering each stream as `answer` says; counts the streams and sessions it saw. */
  async function startH2(
    answer: (res: Http2ServerResponse, nth: number) => void,
  ): Promise<{ url: string; ca: string; streams: () => number; sessions: () => number }> {
    const material = await selfSignedMaterial();
    let streams = 0;
    let sessions = 0;
    h2 = createSecureServer({ cert: material.cert, key: material.key, allowHTTP1: false }, (req, res) => {
      const nth = ++streams;
      req.resume();
      req.once('end', () => answer(res, nth));
    });
    h2.on('session', () => sessions++);
    await new Promise<void>((resolve) => h2!.listen(0, '127.0.0.1', resolve));
    return {
      url: `https://127.0.0.1:${(h2.address() as AddressInfo).port}`,
      ca: material.cert,
      streams: () => streams,
      sessions: () => sessions,
    };
  }

  const fastH2Set = (url: string, ca: string, slots: number, headersTimeoutMs = 5000): ConnectionSet =>
    new ConnectionSet(url, {
      lanes: [{ connections: 1, connect: buildConnector({ ca, allowH2: true }) }],
      slots,
      allowH2: true,
      headersTimeoutMs,
      bodyTimeoutMs: 5000,
      idleTimeoutMs: 4000,
      client: 'rpcload',
    });

  it('a GOAWAY with streams in flight: they finish on the old session, later requests open a new one, each request ends once and is sent once', async () => {
    const held: Http2ServerResponse[] = [];
    const server2 = await startH2((res) => held.push(res));
    const connections = fastH2Set(server2.url, server2.ca, 8);
    set = connections;
    let ends = 0;
    const newRequest = (name: string): TestRequest =>
      new TestRequest(name, (r) => {
        ends++;
        connections.release(r);
      });
    const first = Array.from({ length: 4 }, (_, i) => newRequest(`a${i}`));
    for (const r of first) connections.dispatch(r);
    await expect.poll(() => held.length).toBe(4);
    // nginx's way at keepalive_requests: GOAWAY naming the last stream it took, then it answers those.
    const session = held[0]!.stream.session!;
    session.goaway(h2constants.NGHTTP2_NO_ERROR, Math.max(...held.map((res) => res.stream.id!)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = Array.from({ length: 4 }, (_, i) => newRequest(`b${i}`));
    for (const r of later) connections.dispatch(r);
    for (const res of held.splice(0, 4)) res.end('{"status":"success","data":{}}');
    await expect.poll(() => held.length).toBe(4);
    for (const res of held.splice(0)) res.end('{"status":"success","data":{}}');
    await Promise.all([...first, ...later].map((r) => r.ended));
    expect([...first, ...later].map((r) => [r.status, r.error])).toEqual(Array(8).fill([200, null]));
    expect(ends).toBe(8);
    expect(server2.streams()).toBe(8);
    expect(server2.sessions()).toBe(2);
  });

  it('a stream the server refuses (never processed) goes out again and succeeds', async () => {
    const server2 = await startH2((res, nth) => {
      if (nth === 1) res.stream.close(h2constants.NGHTTP2_REFUSED_STREAM);
      else res.end('{"status":"success","data":{}}');
    });
    const connections = fastH2Set(server2.url, server2.ca, 4);
    set = connections;
    const request = new TestRequest('r', (r) => connections.release(r));
    connections.dispatch(request);
    await request.ended;
    expect([request.status, request.error]).toEqual([200, null]);
    expect(server2.streams()).toBe(2);
  });

  it('a server refusing every stream fails the request after a few tries, not forever', async () => {
    const server2 = await startH2((res) => res.stream.close(h2constants.NGHTTP2_REFUSED_STREAM));
    const connections = fastH2Set(server2.url, server2.ca, 4);
    set = connections;
    const request = new TestRequest('r', (r) => connections.release(r));
    connections.dispatch(request);
    await request.ended;
    expect(request.error?.message).toMatch(/reset with code 7/);
    expect(server2.streams()).toBe(4);
  });

  it('a stream reset with an error fails its request only; the session goes on', async () => {
    const server2 = await startH2((res, nth) => {
      if (nth === 1) res.stream.close(h2constants.NGHTTP2_INTERNAL_ERROR);
      else res.end('{"status":"success","data":{}}');
    });
    const connections = fastH2Set(server2.url, server2.ca, 4);
    set = connections;
    const reset = new TestRequest('x', (r) => connections.release(r));
    connections.dispatch(reset);
    await reset.ended;
    expect((reset.error as { code?: string } | null)?.code).toBe('UND_ERR_SOCKET');
    const next = new TestRequest('y', (r) => connections.release(r));
    connections.dispatch(next);
    await next.ended;
    expect(next.status).toBe(200);
    expect(server2.sessions()).toBe(1);
  });

  it('a server that never answers: the request fails with the headers timeout', async () => {
    const server2 = await startH2(() => undefined);
    const connections = fastH2Set(server2.url, server2.ca, 4, 300);
    set = connections;
    const request = new TestRequest('t', (r) => connections.release(r));
    connections.dispatch(request);
    await request.ended;
    expect((request.error as { code?: string } | null)?.code).toBe('UND_ERR_HEADERS_TIMEOUT');
  });
});
