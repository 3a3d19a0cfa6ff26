import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createWarmConnector, type WarmConnector } from '../../src/driver/warm-connector.ts';
import { sendJson, startScriptedServer, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

/** A keep-alive JSON server on 127.0.0.1 that tracks its open sockets. */
interface CountingServer {
  readonly origin: URL;
  readonly open: Set<Socket>;
  accepted: number;
  close(): Promise<void>;
}

async function startCountingServer(): Promise<CountingServer> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => sendJson(res, 200, { status: 'success', data: {} }));
  });
  const counting = { open: new Set<Socket>(), accepted: 0 } as CountingServer;
  server.on('connection', (socket) => {
    counting.accepted++;
    counting.open.add(socket);
    socket.on('close', () => counting.open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(counting, {
    origin: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const post = (pool: Pool): Promise<number> =>
  pool
    .request({ path: '/api/ping', method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    .then(async (r) => (await r.body.text(), r.statusCode));

let server: CountingServer | undefined;
let scripted: TestServer | undefined;
let connector: WarmConnector | undefined;
let pool: Pool | undefined;
afterEach(async () => {
  connector?.dispose();
  await pool?.destroy();
  await server?.close();
  await scripted?.close();
  [server, scripted, connector, pool] = [undefined, undefined, undefined, undefined];
});

describe('createWarmConnector', () => {
  it('opens the connections up front and the pool uses them instead of connecting', async () => {
    server = await startCountingServer();
    connector = createWarmConnector(server.origin, {});
    expect(await connector.warm(4)).toBe(4);
    await until(() => server!.accepted === 4, '4 accepted connections');
    pool = new Pool(server.origin.origin, { connections: 4, connect: connector.connect });
    expect(await Promise.all([1, 2, 3, 4].map(() => post(pool!)))).toEqual([200, 200, 200, 200]);
    expect(server.accepted).toBe(4);
  });

  it('skips parked sockets the server has closed and connects anew', async () => {
    server = await startCountingServer();
    connector = createWarmConnector(server.origin, {});
    await connector.warm(3);
    await until(() => server!.open.size === 3, '3 open connections');
    for (const socket of server.open) socket.destroy();
    await until(() => server!.open.size === 0, 'the server to close them');
    await new Promise((resolve) => setTimeout(resolve, 50)); // the client side reads the FIN
    pool = new Pool(server.origin.origin, { connections: 3, connect: connector.connect });
    expect(await Promise.all([1, 2, 3].map(() => post(pool!)))).toEqual([200, 200, 200]);
    expect(server.accepted).toBe(6);
  });

  it('closes parked sockets nobody asked for within the idle limit', async () => {
    server = await startCountingServer();
    connector = createWarmConnector(server.origin, {}, 200);
    await connector.warm(5);
    await until(() => server!.open.size === 5, '5 open connections');
    pool = new Pool(server.origin.origin, { connections: 5, connect: connector.connect });
    expect(await post(pool)).toBe(200); // takes one parked socket; the pool keeps it alive
    await until(() => server!.open.size === 1, 'the 4 unused sockets to close', 2000);
    expect(await post(pool)).toBe(200);
    expect(server.accepted).toBe(5);
  });

  it('reports connections that could not be opened', async () => {
    server = await startCountingServer();
    const origin = server.origin;
    await server.close();
    server = undefined;
    connector = createWarmConnector(origin, { timeout: 1000 });
    expect(await connector.warm(2)).toBe(0);
  });
});

describe('runLoad preconnect', () => {
  const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];

  /** A scripted API: tokens for anyone, success for every method. */
  async function startApi(): Promise<string> {
    scripted = await startScriptedServer((req, res) => {
      if (req.url.endsWith('/auth.token'))
        return sendJson(res, 200, { access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
      sendJson(res, 200, { status: 'success', data: {} });
    });
    return scripted.url;
  }

  // 10 requests spaced 50 ms apart never need more than a socket or two: any more were preconnected.
  it('opens every connection of the pool before the load starts', async () => {
    const url = await startApi();
    const { result } = await runPlan(
      testPlan({ scenarios: ping, phases: [{ duration: '500ms', rate: 20 }], http: { connections: 12 } }, url),
      url,
    );
    expect(result.summary.outcomes).toEqual({ success: 10 });
    expect(scripted!.connections()).toBeGreaterThanOrEqual(12); // plus the token requests' own
  });

  it('connects lazily with preconnect: false', async () => {
    const url = await startApi();
    const { result } = await runPlan(
      testPlan(
        { scenarios: ping, phases: [{ duration: '500ms', rate: 20 }], http: { connections: 12, preconnect: false } },
        url,
      ),
      url,
    );
    expect(result.summary.outcomes).toEqual({ success: 10 });
    expect(scripted!.connections()).toBeLessThan(6);
  });
});
