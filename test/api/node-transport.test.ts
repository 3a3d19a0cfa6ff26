/**
 * The token requests' client (Node's http and https, node-transport.ts) against real servers on
 * 127.0.0.1, beside undici's answers to the same: headers as undici gives them, kept-alive
 * connections, the trust settings, the call's deadline and cancel, and the outcomes of replies
 * that are not usable.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/api/undici-agents.ts';
import { callApi, type ApiTransport } from '../../src/api/http-call.ts';
import { NodeHttpTransport } from '../../src/api/node-transport.ts';
import { startServer } from '../../src/server/start-server.ts';
import { sendJson, startRawServer, startScriptedServer, type TestServer } from '../support/http-server.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const node = new NodeHttpTransport({ connections: 2 });
const undici = createDispatcher({ connections: 2 });
const both: [string, ApiTransport][] = [
  ['node:http', node],
  ['undici', undici],
];

describe('NodeHttpTransport, as undici reads the same replies', () => {
  it('gives a repeated header as a list and a single one as a string', async () => {
    server = await startRawServer((_request, socket) => {
      const body = '{"status":"error","error":"rate_limit_exceeded"}';
      socket.write(
        `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 3\r\nretry-after: 5\r\n` +
          `content-length: ${body.length}\r\n\r\n${body}`,
      );
    });
    const replies = await Promise.all(both.map(([, t]) => callApi(t, { baseUrl: server!.url, method: 'ping' })));
    for (const reply of replies) {
      expect(reply.status).toBe(429);
      expect(reply.headers['retry-after']).toEqual(['3', '5']);
      expect(reply.headers['content-type']).toBe('application/json');
      expect(reply.classification?.outcome).toBe('error:rate_limit_exceeded');
    }
  });

  it('keeps its connections alive: ten calls one after the other, one connection', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { status: 'success', data: {} }));
    for (let i = 0; i < 10; i++)
      expect((await callApi(node, { baseUrl: server.url, method: 'ping' })).classification?.outcome).toBe('success');
    expect(server.connections()).toBe(1);
  });

  it('sends a signer’s flat header list as it is', async () => {
    server = await startScriptedServer((_req, res) => sendJson(res, 200, { status: 'success', data: {} }));
    const reply = await callApi(node, {
      baseUrl: server.url,
      method: 'ping',
      sign: ({ headers }) => [...headers, 'x-signature', 'abc', 'x-list', '1', 'x-list', '2'],
    });
    expect(reply.classification?.outcome).toBe('success');
    const seen = server.seen[0]!.headers;
    expect([seen['x-signature'], seen['x-list'], seen['content-type']]).toEqual(['abc', '1, 2', 'application/json']);
    // What a flat list to Node would lose: the Host, and a Content-Length rather than chunks.
    expect([seen.host, seen['content-length'], seen['transfer-encoding']]).toEqual([
      new URL(server.url).host,
      '2',
      undefined,
    ]);
  });

  it.each(both)('%s: a reply that never comes ends at the call’s deadline as transport:timeout', async (_, t) => {
    server = await startScriptedServer(() => undefined);
    const reply = await callApi(t, { baseUrl: server.url, method: 'ping', timeoutMs: 300 });
    expect(reply.transportError).toBe('transport:timeout');
    expect(reply.doneAtMs - reply.sentAtMs).toBeLessThan(2_000);
  });

  it.each(both)('%s: a header block over 16 KB is transport:headers_too_large', async (_, t) => {
    server = await startRawServer((_request, socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nx-huge: ${'a'.repeat(20_000)}\r\ncontent-length: 2\r\n\r\n{}`);
    });
    const reply = await callApi(t, { baseUrl: server.url, method: 'ping' });
    expect(reply.transportError).toBe('transport:headers_too_large');
  });

  it('a call cancelled through its signal ends as transport:cancelled, at once', async () => {
    server = await startScriptedServer(() => undefined);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    const reply = await callApi(node, { baseUrl: server.url, method: 'ping', signal: stop.signal });
    expect(reply.transportError).toBe('transport:cancelled');
    expect(reply.doneAtMs - reply.sentAtMs).toBeLessThan(1_000);
  });

  it('a reset in the middle of the body is a transport outcome, not a crash', async () => {
    server = await startRawServer((_request, socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"status":');
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    const reply = await callApi(node, { baseUrl: server.url, method: 'ping' });
    expect(reply.status).toBe(0);
    expect(reply.transportError).toMatch(/^transport:/);
  });

  it('trusts the CA it is given over https, and refuses a server it cannot verify', async () => {
    const tls = await startServer({ tls: true });
    try {
      const trusted = new NodeHttpTransport({ ca: tls.certPem! });
      const reply = await callApi(trusted, { baseUrl: tls.url, method: 'ping', token: 'x' });
      expect(reply.transportError).toBeNull();
      expect(reply.status).toBe(401);
      const untrusted = await callApi(new NodeHttpTransport({}), { baseUrl: tls.url, method: 'ping' });
      expect(untrusted.transportError).toMatch(
        /^transport:(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/,
      );
      await Promise.all([trusted.destroy()]);
    } finally {
      await tls.close();
    }
  });

  it('destroy() closes its kept-alive connections', async () => {
    let open = 0;
    const plain: Server = createServer((_req, res) => res.end('{"status":"success","data":{}}'));
    plain.on('connection', (socket) => {
      open++;
      socket.on('close', () => open--);
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const own = new NodeHttpTransport({});
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
    await callApi(own, { baseUrl: url, method: 'ping' });
    expect(open).toBe(1);
    await own.destroy();
    await expect.poll(() => open, { timeout: 2_000 }).toBe(0);
    await new Promise((resolve) => plain.close(resolve));
  });
});
