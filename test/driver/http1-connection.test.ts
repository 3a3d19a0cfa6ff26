/**
 * rpcload's HTTP/1.1 client against real servers on 127.0.0.1: for each hostile or unusual reply,
 * the outcome the engine would record is the same as on undici's Client (behind its adapter; a few
 * differences are deliberate and named); and the connection behaves as a keep-alive client must —
 * reuse, close, pipelining, timeouts, cuts, bytes after a response, request bytes identical to undici's.
 */
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { transportOutcome } from '../../src/api/outcome.ts';
import type { Carrier, Connection, LoadRequest } from '../../src/driver/connection.ts';
import { directReadConnector } from '../../src/driver/connection-socket.ts';
import { Http1Connection } from '../../src/driver/http1/http1-connection.ts';
import type { RequestHead } from '../../src/driver/request-head.ts';
import { UndiciConnection } from '../../src/driver/undici-connection.ts';
import { createWarmConnector } from '../../src/driver/warm-connector.ts';
import type { HttpClientName } from '../../src/profile/plan.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { rawResponse, startRawServer, type RawRequest, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

let server: TestServer | undefined;
let reference: ServerHandle | undefined;
const opened: Connection[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.destroy().catch(() => undefined)));
  await server?.close();
  await reference?.close();
  server = reference = undefined;
});

/**
 * `rpcload`: rpcload's HTTP/1.1 client on the sockets a load gives it on http: (read directly, see
 * connection-socket.ts); `rpcload-streamed`: the same client on sockets emitting 'data', as over TLS.
 */
type ClientKind = 'rpcload' | 'rpcload-streamed' | 'undici';

function connectionTo(
  client: ClientKind,
  origin: string,
  options: { pipelining?: number; headersTimeoutMs?: number; bodyTimeoutMs?: number } = {},
): Connection {
  const { pipelining = 1, headersTimeoutMs = 3000, bodyTimeoutMs = 3000 } = options;
  const connect = client === 'rpcload' ? directReadConnector({}) : buildConnector({});
  const common = { headersTimeoutMs, bodyTimeoutMs, idleTimeoutMs: 4000, connect };
  const connection =
    client === 'undici'
      ? new UndiciConnection(origin, { pipelining, allowH2: false, maxConcurrentStreams: 1, ...common })
      : new Http1Connection(origin, { pipelining, ...common });
  opened.push(connection);
  return connection;
}

interface Exchange {
  /** `<status> <body>` for a response, the engine's outcome key for a failure. */
  readonly result: Promise<string>;
  /** Cut the request short, as the engine's deadline does (once it is on a connection). */
  cut(reason: Error): void;
}

const REQUEST: RequestHead = {
  path: '/api/ping',
  method: 'POST',
  headers: ['content-type', 'application/json', 'authorization', 'Bearer t0k'],
  traceparent: null,
  body: Buffer.from('{"n":1}'),
};

/** Send one request, reporting as the engine's requests are told (the connection contract). */
function send(connection: Connection, head: RequestHead = REQUEST): Exchange {
  let carrier: Carrier | null = null;
  let request!: LoadRequest;
  const result = new Promise<string>((resolve) => {
    let status = 0;
    const body: Buffer[] = [];
    let resends = 0;
    request = {
      head,
      get resends() {
        return resends;
      },
      onResend: () => void resends++,
      onRequestSent: (sentOn) => void (carrier = sentOn),
      onResponseHead: (code) => void (status = code),
      onResponseData: (chunk) => void body.push(Buffer.from(chunk)),
      onResponseEnd: () => resolve(`${status} ${Buffer.concat(body).toString('latin1')}`),
      onRequestError: (err) => resolve(transportOutcome(err)),
    };
    connection.send(request);
  });
  return { result, cut: (reason) => carrier!.cut(request, reason) };
}

/** A raw server answering every request with `reply`, then closing its side after `closeAfterMs` (null: never). */
async function replying(reply: string | Buffer, closeAfterMs: number | null = 50): Promise<TestServer> {
  server = await startRawServer((_request: RawRequest, socket: Socket) => {
    socket.write(typeof reply === 'string' ? Buffer.from(reply, 'latin1') : reply);
    if (closeAfterMs !== null) setTimeout(() => socket.end(), closeAfterMs);
  });
  return server;
}

const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}';
const CLIENTS = ['rpcload', 'rpcload-streamed', 'undici'] as const;
/** The load's clients (http.client). */
const LOAD_CLIENTS: readonly HttpClientName[] = ['rpcload', 'undici'];

describe('each reply gets the same outcome on both clients', () => {
  // [case, reply, outcome] — the outcome the engine records (`<status> <body>` for a response).
  it.each([
    ['a plain response', OK, '200 {}'],
    ['no reason phrase', 'HTTP/1.1 200\r\ncontent-length: 2\r\n\r\n{}', '200 {}'],
    ['HTTP/1.0 with a length', 'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}', '200 {}'],
    ['HTTP/1.2', 'HTTP/1.2 200 OK\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
    ['a two-digit status', 'HTTP/1.1 20 OK\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
    ['lower-case http', 'http/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
    ['bare LF line ends', 'HTTP/1.1 200 OK\ncontent-length: 2\n\n{}', 'transport:invalid_http'],
    ['garbage instead of HTTP', 'HELLO GARBAGE\r\n\r\n', 'transport:invalid_http'],
    ['Content-Length with spaces around it', 'HTTP/1.1 200 OK\r\ncontent-length:   2  \r\n\r\n{}', '200 {}'],
    ['Content-Length +2', 'HTTP/1.1 200 OK\r\ncontent-length: +2\r\n\r\n{}', 'transport:invalid_http'],
    ['Content-Length -2', 'HTTP/1.1 200 OK\r\ncontent-length: -2\r\n\r\n{}', 'transport:invalid_http'],
    ['an empty Content-Length', 'HTTP/1.1 200 OK\r\ncontent-length: \r\n\r\n{}', 'transport:invalid_http'],
    // undici reports any parse error after a Content-Length value as a length mismatch; so does rpcload's client
    [
      'two equal Content-Lengths',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 2\r\n\r\n{}',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'two different Content-Lengths',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'Content-Length "1 2"',
      'HTTP/1.1 200 OK\r\ncontent-length: 1 2\r\n\r\n{}',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'Content-Length over 2^64',
      'HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999999\r\n\r\n{}',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'a Content-Length line ended by a bare LF',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\n\r\n{}',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'Transfer-Encoding then Content-Length',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      'transport:invalid_http',
    ],
    [
      'Content-Length then Transfer-Encoding',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'chunked, in two chunks',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\n\r\n',
      '200 {}',
    ],
    [
      'chunked with extensions and a trailer',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: CHUNKED\r\n\r\n2;a=b;c="d e"\r\n{}\r\n0\r\nx-t: 1\r\n\r\n',
      '200 {}',
    ],
    [
      'a chunk size with a space',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2 \r\n{}\r\n0\r\n\r\n',
      'transport:invalid_http',
    ],
    [
      'a chunk size that is not hex',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      'transport:invalid_http',
    ],
    [
      'a chunk size over 2^64',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10000000000000000\r\n{}\r\n0\r\n\r\n',
      'transport:invalid_http',
    ],
    [
      'chunk data without its CRLF',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n',
      'transport:invalid_http',
    ],
    [
      'a bad trailer',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nx t: 1\r\n\r\n',
      'transport:invalid_http',
    ],
    [
      'a transfer coding other than chunked: body until the close',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n{}',
      '200 {}',
    ],
    ['obs-fold', 'HTTP/1.1 200 OK\r\nx-a: 1\r\n  2\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nx-a : 1\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nxa\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
    [
      'NUL in a header value',
      'HTTP/1.1 200 OK\r\nx-a: 1\u00002\r\ncontent-length: 2\r\n\r\n{}',
      'transport:invalid_http',
    ],
    [
      'DEL in a header value',
      'HTTP/1.1 200 OK\r\nx-a: 1\u007f2\r\ncontent-length: 2\r\n\r\n{}',
      'transport:invalid_http',
    ],
    [
      'a bare CR in a header value',
      'HTTP/1.1 200 OK\r\nx-a: 1\r2\r\ncontent-length: 2\r\n\r\n{}',
      'transport:invalid_http',
    ],
    [
      'a tab and latin1 bytes in header values',
      'HTTP/1.1 200 OK\r\nx-a: 1\t2\r\nx-b: caf\u00e9\r\ncontent-length: 2\r\n\r\n{}',
      '200 {}',
    ],
    [
      'an interim 103 before the response',
      'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}',
      '200 {}',
    ],
    [
      '101 nobody asked for',
      'HTTP/1.1 101 Switching\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n',
      'transport:UND_ERR_SOCKET',
    ],
    ['a body until the close', 'HTTP/1.1 200 OK\r\n\r\n{}', '200 {}'],
    ['HTTP/1.0 with a body until the close', 'HTTP/1.0 200 OK\r\n\r\n{}', '200 {}'],
    [
      'connection: close with a length',
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}',
      '200 {}',
    ],
    [
      'a keep-alive body cut short by the close',
      'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{}',
      'transport:UND_ERR_SOCKET',
    ],
    [
      'a closing body cut short',
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 10\r\n\r\n{}',
      'transport:UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
    ],
    [
      'a keep-alive chunked body cut short',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{}',
      'transport:UND_ERR_SOCKET',
    ],
    [
      'a closing chunked body cut short',
      'HTTP/1.1 200 OK\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{}',
      'transport:invalid_http',
    ],
    ['a head cut short', 'HTTP/1.1 200 OK\r\ncontent-len', 'transport:UND_ERR_SOCKET'],
    ['nothing at all', '', 'transport:UND_ERR_SOCKET'],
    ['bytes after the response', `${OK}GARBAGE`, '200 {}'],
    ['a second response nobody asked for', `${OK}${OK}`, '200 {}'],
    [
      'a header block of 16,375 bytes',
      `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(16370)}\r\ncontent-length: 2\r\n\r\n{}`,
      'transport:headers_too_large',
    ],
    [
      'a header block just under 16 KiB',
      `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(16360)}\r\ncontent-length: 2\r\n\r\n{}`,
      '200 {}',
    ],
  ])('%s', async (_name, reply, expected) => {
    const { url } = await replying(reply);
    for (const client of CLIENTS)
      expect([client, await send(connectionTo(client, url)).result]).toEqual([client, expected]);
  });

  // Where rpcload's client deliberately differs: undici fails these, rpcload's follows the RFC.
  it.each([
    // RFC 9110 §15.2: unsolicited interim responses must be skipped (undici drops the connection)
    [
      'an unsolicited 100 Continue',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}',
      '200 {}',
    ],
    // RFC 9110 §6.4.1: 204 and 304 have no content, whatever Content-Length says (undici counts it as a mismatch)
    [
      'a 304 with the Content-Length of the representation',
      'HTTP/1.1 304 Not Modified\r\ncontent-length: 2\r\n\r\n',
      '304 ',
    ],
    ['a 204 with a Content-Length', 'HTTP/1.1 204 No Content\r\ncontent-length: 2\r\n\r\n', '204 '],
    // status codes run from 100 (undici fails an assertion: transport:ERR_ASSERTION)
    ['status 099', 'HTTP/1.1 099 X\r\ncontent-length: 2\r\n\r\n{}', 'transport:invalid_http'],
  ])('rpcload client: %s', async (_name, reply, expected) => {
    const { url } = await replying(reply);
    for (const client of ['rpcload', 'rpcload-streamed'] as const)
      expect([client, await send(connectionTo(client, url)).result]).toEqual([client, expected]);
  });
});

describe("rpcload's HTTP/1.1 client as a keep-alive connection", () => {
  const answer = (socket: Socket, extra = ''): void => void socket.write(Buffer.from(`${OK}${extra}`, 'latin1'));

  it('writes the same request bytes as undici', async () => {
    const heads: string[] = [];
    server = await startRawServer((request, socket) => {
      heads.push(`${request.head}\r\n\r\n${request.body.toString('latin1')}`);
      answer(socket);
    });
    for (const client of CLIENTS) expect(await send(connectionTo(client, server.url)).result).toBe('200 {}');
    expect(heads[0]).toBe(heads[1]);
    expect(heads[0]).toMatch(/^POST \/api\/ping HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\nconnection: keep-alive\r\n/);
  });

  it('carries request after request on one socket', async () => {
    server = await startRawServer((_request, socket) => answer(socket));
    const connection = connectionTo('rpcload', server.url);
    for (let i = 0; i < 5; i++) expect(await send(connection).result).toBe('200 {}');
    expect(server.seen).toHaveLength(5);
    expect(server.connections()).toBe(1);
  });

  it('opens a new socket after connection: close, and after the server closed an idle one', async () => {
    let closes = true;
    server = await startRawServer((_request, socket) => {
      socket.write(closes ? 'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}' : OK);
      if (!closes) setTimeout(() => socket.end(), 20); // closes the idle connection after answering
    });
    const connection = connectionTo('rpcload', server.url);
    for (let i = 0; i < 3; i++) expect(await send(connection).result).toBe('200 {}');
    closes = false;
    for (let i = 0; i < 3; i++) {
      expect(await send(connection).result).toBe('200 {}');
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(server.seen).toHaveLength(6);
  });

  it('never reads bytes after a response as the next response: the next request goes on a new socket', async () => {
    server = await startRawServer((_request, socket) =>
      answer(socket, 'HTTP/1.1 500 Stale\r\ncontent-length: 0\r\n\r\n'),
    );
    for (const client of CLIENTS) {
      const connection = connectionTo(client, server.url);
      for (let i = 0; i < 3; i++) expect([client, await send(connection).result]).toEqual([client, '200 {}']);
    }
    expect(server.seen).toHaveLength(9);
  });

  it('pipelines up to `pipelining` requests and matches the responses in order', async () => {
    server = await startRawServer((_request, socket) => {
      // Answer only once all three are in: they were on the wire together.
      if (server!.seen.length === 3)
        for (const [n, seen] of server!.seen.entries())
          socket.write(rawResponse(200, JSON.stringify({ n, path: seen.url })));
    });
    const connection = connectionTo('rpcload', server.url, { pipelining: 3 });
    const paths = ['/api/a', '/api/b', '/api/c'];
    const results = paths.map((path) => send(connection, { ...REQUEST, path }).result);
    expect(await Promise.all(results)).toEqual(paths.map((path, n) => `200 ${JSON.stringify({ n, path })}`));
    expect(server.connections()).toBe(1);
  });

  it('sends each request its own traceparent, one after another and pipelined (written together)', async () => {
    const tp = (n: number): string => `00-${String(n).padStart(32, '0')}-${'2'.repeat(16)}-01`;
    server = await startRawServer((request, socket) => {
      socket.write(rawResponse(200, JSON.stringify({ tp: /traceparent: (\S+)/.exec(request.head)?.[1] })));
    });
    // As the connection set does: at most `pipelining` requests handed to a connection at once.
    for (const pipelining of [1, 3])
      for (let round = 0; round < 3; round++) {
        const connection = connectionTo('rpcload', server.url, { pipelining });
        const numbers = Array.from({ length: pipelining }, (_, i) => 100 * pipelining + 10 * round + i);
        const results = numbers.map((n) => send(connection, { ...REQUEST, traceparent: tp(n) }).result);
        expect(await Promise.all(results)).toEqual(numbers.map((n) => `200 ${JSON.stringify({ tp: tp(n) })}`));
      }
  });

  it('fails a request whose head does not come within the headers timeout, and one whose body stalls', async () => {
    server = await startRawServer(() => undefined);
    const started = performance.now();
    expect(await send(connectionTo('rpcload', server.url, { headersTimeoutMs: 300 })).result).toBe('transport:timeout');
    expect(performance.now() - started).toBeLessThan(2000);
    await server.close();
    server = await startRawServer(
      (_request, socket) => void socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{'),
    );
    expect(await send(connectionTo('rpcload', server.url, { bodyTimeoutMs: 300 })).result).toBe('transport:timeout');
  });

  it('a cut fails the request with its reason and closes the socket; the next request works', async () => {
    let answering = false;
    server = await startRawServer((_request, socket) => void (answering && answer(socket)));
    const connection = connectionTo('rpcload', server.url);
    const first = send(connection);
    await expect.poll(() => server!.seen.length).toBe(1);
    first.cut(Object.assign(new Error('cut'), { code: 'RPCLOAD_CUT' }));
    expect(await first.result).toBe('transport:RPCLOAD_CUT');
    answering = true;
    expect(await send(connection).result).toBe('200 {}');
    expect(server.seen).toHaveLength(2);
  });

  it('closes an idle socket before a server keep-alive timeout it announced', async () => {
    server = await startRawServer(
      (_request, socket) =>
        void socket.write(`HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\n{}`),
    );
    const connection = connectionTo('rpcload', server.url);
    expect(await send(connection).result).toBe('200 {}');
    await expect.poll(() => server!.connections()).toBe(0); // 1 s less undici's 2 s margin: closed at once
    expect(await send(connection).result).toBe('200 {}');
  });

  it('refuses a header value that would inject a header, sending nothing', async () => {
    server = await startRawServer((_request, socket) => answer(socket));
    const injected: RequestHead = { ...REQUEST, headers: ['authorization', 'Bearer x\r\nx-evil: 1'] };
    for (const client of CLIENTS)
      expect(await send(connectionTo(client, server.url), injected).result).toBe('transport:UND_ERR_INVALID_ARG');
    expect(server.seen).toHaveLength(0);
  });

  it('fails waiting requests with the connect error when nothing listens, and in-flight ones when destroyed', async () => {
    const { url } = await replying('', null);
    await server!.close();
    server = undefined;
    for (const client of CLIENTS) expect(await send(connectionTo(client, url)).result).toBe('transport:ECONNREFUSED');
    server = await startRawServer(() => undefined);
    const connection = connectionTo('rpcload', server.url);
    const hanging = send(connection);
    await expect.poll(() => server!.seen.length).toBe(1);
    await connection.destroy();
    expect(await hanging.result).toBe('transport:UND_ERR_DESTROYED');
  });
});

describe("rpcload's HTTP/1.1 client on sockets read directly (one read buffer for all)", () => {
  it('gives each of several connections its own bytes while their long bodies arrive interleaved', async () => {
    const bodies = ['a', 'b', 'c', 'd'].map((letter, n) => `${letter.repeat(150_000)}${n}`);
    let next = 0;
    server = await startRawServer((_request, socket) => {
      const body = bodies[next++ % bodies.length]!;
      socket.write(Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'));
      // In pieces, a few milliseconds apart: the four responses' reads take turns in the one buffer.
      let at = 0;
      const drip = setInterval(() => {
        socket.write(body.slice(at, (at += 16_384)));
        if (at >= body.length) clearInterval(drip);
      }, 2);
    });
    const results = await Promise.all(bodies.map(() => send(connectionTo('rpcload', server!.url)).result));
    expect(results.map((r) => r.length).sort()).toEqual(bodies.map((b) => `200 ${b}`.length).sort());
    expect(new Set(results)).toEqual(new Set(bodies.map((b) => `200 ${b}`)));
  });

  it("does not take bytes a parked socket read before its first request for that request's response", async () => {
    // A server greeting its first connection with a response nobody asked for, answering requests properly.
    let connections = 0;
    const greeting = createNetServer((socket) => {
      socket.on('error', () => undefined);
      if (connections++ === 0) socket.write('HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n');
      socket.on('data', () => socket.write(OK));
    });
    await new Promise<void>((resolve) => greeting.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(greeting.address() as AddressInfo).port}`;
    const warm = createWarmConnector(new URL(url), {}, 5000, undefined, true);
    try {
      expect(await warm.warm(1)).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the greeting is read, and held, while parked
      const connection = new Http1Connection(url, {
        pipelining: 1,
        headersTimeoutMs: 3000,
        bodyTimeoutMs: 3000,
        connect: warm.connect,
      });
      opened.push(connection);
      // The held bytes are a response with no request: that socket closes, the request goes on a new one.
      expect(await send(connection).result).toBe('200 {}');
      expect(connections).toBe(2);
    } finally {
      warm.dispose();
      greeting.close();
    }
  });
});

describe("a load on rpcload's HTTP/1.1 client", () => {
  it('runs over TLS, trusting the server through http.ca, with the same outcomes as undici', async () => {
    reference = await startServer({ limit: 10_000, tls: true });
    for (const client of LOAD_CLIENTS) {
      const plan = testPlan(
        {
          scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
          phases: [{ duration: '1s', rate: 40 }],
          http: { ca: reference.certPem, client },
        },
        reference.url,
      );
      const { result } = await runPlan(plan, reference.url);
      expect([client, result.summary.outcomes]).toEqual([client, { success: 40 }]);
    }
  });
});
