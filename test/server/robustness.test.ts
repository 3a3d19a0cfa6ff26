import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/start-server.ts';
import { call, rawRoundTrip, sleep, startTestServer, tokenFor } from '../support/server-helpers.ts';

const STATUS_LINE = /^HTTP\/1\.1 (\d{3}) /;

describe('malformed input never crashes the server', () => {
  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n', 400],
    ['binary noise', Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a]), 400],
    ['a bad Content-Length', 'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    [
      'conflicting framing headers',
      'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    ['16 KiB of headers', `POST /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('%s → %d with an error envelope, then the server still answers', async (_name, payload, status) => {
    const server = await startTestServer();
    const { text, closedByServer } = await rawRoundTrip(server.port, payload);
    expect(STATUS_LINE.exec(text)?.[1]).toBe(String(status));
    expect(text).toMatch(/\r\n\r\n\{"status":"error","error":"invalid_request"\}$/);
    expect(closedByServer).toBe(true);
    expect((await call(server.url, 'ping', undefined)).status).toBe(401);
  });

  it('slow headers are cut off with 408 after headersTimeoutMs', async () => {
    const server = await startTestServer({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const startedMs = performance.now();
    const { text, closedByServer } = await rawRoundTrip(server.port, 'POST /api/ping HTTP/1.1\r\nHost: x\r\n', {
      keepOpen: true,
      timeoutMs: 5000,
    });
    expect(STATUS_LINE.exec(text)?.[1]).toBe('408');
    expect(text).toContain('{"status":"error","error":"request_timeout"}');
    expect(closedByServer).toBe(true);
    expect(performance.now() - startedMs).toBeLessThan(4000); // checked every ≤ 1 s, not Node's 30 s
  });

  it('a client that half-closes after its request still gets the answer', async () => {
    const server = await startTestServer();
    const { text } = await rawRoundTrip(
      server.port,
      'POST /api/ping HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(STATUS_LINE.exec(text)?.[1]).toBe('401');
  });

  it('clients vanishing mid-body or mid-work leave the server healthy', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const midBody = connect(server.port, '127.0.0.1');
    midBody.write(
      `POST /api/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`,
    );
    const abort = new AbortController();
    const midWork = call(server.url, 'work', token, { delayMs: 300 }, { signal: abort.signal }).catch(() => 'aborted');
    await sleep(50);
    midBody.destroy();
    abort.abort();
    expect(await midWork).toBe('aborted');
    await sleep(400); // the work delay ends with nobody to answer
    expect((await call(server.url, 'ping', token)).status).toBe(200);
  });

  it('many malformed requests in parallel, then normal service', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const junk = ['{', '[]', '{"next":', '\u0000', '{"a":1}'.repeat(100)];
    const replies = await Promise.all(
      junk.flatMap((body) => [
        call(server.url, 'items.list', token, undefined, { body }),
        call(server.url, 'echo', token, undefined, { body }),
      ]),
    );
    expect(replies.map((r) => r.status).filter((s) => s !== 400)).toEqual([]);
    expect((await call(server.url, 'items.list', token, { next: 'x'.repeat(5000) })).status).toBe(400);
    expect((await call(server.url, 'ping', token)).status).toBe(200);
  });
});

describe('close()', () => {
  it('lets a short in-flight request finish, then stops accepting', async () => {
    const server = await startServer();
    const token = await tokenFor(server.url, 'client-a');
    const inFlight = call(server.url, 'work', token, { delayMs: 300 });
    await sleep(50);
    await server.close();
    expect((await inFlight).json).toEqual({ status: 'success', data: { delayMs: 300 } });
    await expect(call(server.url, 'ping', token)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('cuts off a long request after the grace period instead of waiting for it', async () => {
    const server = await startServer();
    const token = await tokenFor(server.url, 'client-a');
    const inFlight = call(server.url, 'work', token, { delayMs: 60_000 }).then(
      () => 'answered',
      () => 'cut off',
    );
    await sleep(50);
    const startedMs = performance.now();
    await server.close();
    expect(performance.now() - startedMs).toBeLessThan(5000); // grace is 1 s
    expect(await inFlight).toBe('cut off');
  });

  it('is idempotent', async () => {
    const server = await startServer();
    await Promise.all([server.close(), server.close()]);
    await server.close();
  });
});
