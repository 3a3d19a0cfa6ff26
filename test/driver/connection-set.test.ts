import type { ServerResponse } from 'node:http';
import { buildConnector, type Dispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionSet, type ConnectionRequest } from '../../src/driver/connection-set.ts';
import { HTTP_CLIENTS } from '../../src/profile/schema-settings.ts';
import { sendJson, startScriptedServer, type TestServer } from '../support/http-server.ts';

/** A request that records how it ended; `ended` resolves then. */
class TestRequest implements ConnectionRequest {
  connection = -1;
  status = 0;
  error: Error | null = null;
  readonly ended: Promise<void>;
  private end!: () => void;
  readonly options: Dispatcher.DispatchOptions;

  constructor(
    readonly name: string,
    private readonly onEnd: (request: TestRequest) => void,
  ) {
    this.options = { path: `/api/${name}`, method: 'POST', headers: ['content-type', 'application/json'], body: '{}' };
    this.ended = new Promise((resolve) => (this.end = resolve));
  }

  onConnect(): void {}
  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }
  onData(): boolean {
    return true;
  }
  onComplete(): void {
    this.onEnd(this);
    this.end();
  }
  onError(error: Error): void {
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
      connections,
      pipelining,
      headersTimeoutMs: 5000,
      bodyTimeoutMs: 5000,
      connect: buildConnector({}),
      client,
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
