/**
 * The load's HTTP/2 connection: sessions of Node's `http2` module over sockets from the lane's
 * connector, implementing rpcload's connection contract (connection.ts) — `send(request)`,
 * `destroy()` — and telling each request what happened through its own methods.
 *
 * Why not undici's HTTP/2 Client: when a server ends a session with GOAWAY — nginx does it after
 * `keepalive_requests` (1,000) streams on every connection, so any long h2 load through nginx meets
 * it — undici 7 puts the streams still in flight back in its queue and sends them again on a new
 * session while the old one finishes them; when a first copy's response has completed, the second
 * copy's response trips an assertion inside undici (`assert(!this.completed)`) from an event
 * handler, which no handler of ours can catch, and the run dies without its result. Here a GOAWAY
 * only retires the session: its streams finish on it, new requests open the next session.
 *
 * Behaviour:
 * - A stream the server refuses (RST_STREAM REFUSED_STREAM, also what the streams above a GOAWAY's
 *   last stream id get) was by the protocol's guarantee never processed, so it goes out again on
 *   the next session (at most MAX_REFUSALS times; then it fails). Its latency still counts from
 *   its intended start: the engine's clock, not this module's, measures it.
 * - `maxConcurrentStreams` streams at once per session (fewer when the server's SETTINGS say so:
 *   Node holds back the excess until a stream closes).
 * - A session with no stream open for `idleTimeoutMs` is closed, before a server's own idle timeout
 *   closes it under a new stream (nginx ends idle sessions after its `keepalive_timeout`).
 * - Headers and body timeouts as undici's: time to the response head, then the longest pause
 *   between body chunks; a stream past either is cancelled and fails with undici's error.
 * - Connection-specific headers (connection, keep-alive, transfer-encoding, host…) are not HTTP/2
 *   headers: dropped, the host becoming `:authority`. The head follows the rules every connection
 *   applies (request-head.ts): the same checks, the same Content-Length on the methods that expect
 *   a payload, the traceparent after the list.
 */
import type * as http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { errors, type buildConnector } from 'undici';
import type { Carrier, Connection, LoadRequest } from '../connection.ts';
import { connectParamsOf, discardSocket, openSocket } from '../connection-socket.ts';
import { checkRequestHead, checkTraceparent, expectsPayload, type RequestHead } from '../request-head.ts';

export interface Http2ConnectionOptions {
  /** Streams open at once on one session. */
  readonly maxConcurrentStreams: number;
  /** From sending a request until its response head arrives (0 = none). */
  readonly headersTimeoutMs: number;
  /** Longest pause between body chunks (0 = none). */
  readonly bodyTimeoutMs: number;
  /** Opens a socket to the origin (undici's connector signature), which must negotiate h2. */
  readonly connect: buildConnector.connector;
  /** Close a session with no stream open for this long; default 4 s (undici's keep-alive timeout). */
  readonly idleTimeoutMs?: number;
}

interface Pending {
  readonly request: LoadRequest;
  /** How many times a server has refused it so far. */
  refusals: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 4000;
/** A refused request is sent again at most this many times (a server refusing everything must not loop the run). */
const MAX_REFUSALS = 3;
/** Request headers HTTP/2 forbids (RFC 9113 §8.2.2); `host` becomes `:authority`. */
const CONNECTION_SPECIFIC = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'host',
  'te',
]);
/** HTTP/2 error codes (RFC 9113 §7), as node:http2's constants name them. */
const NGHTTP2_REFUSED_STREAM = 0x7;
const NGHTTP2_CANCEL = 0x8;
const ignore = (): void => undefined;

export class Http2Connection implements Connection, Carrier {
  private readonly origin: string;
  private readonly authority: string;
  private readonly connectParams: buildConnector.Options;
  private session: http2.ClientHttp2Session | null = null;
  private connecting = false;
  private destroyed = false;
  private readonly pending: Pending[] = [];
  /** Streams open on the current session (a retired session's streams are not counted). */
  private open = 0;
  /** How to fail each request on a stream not yet ended, on any session: cut() and destroy() do. */
  private readonly live = new Map<LoadRequest, (error: Error) => void>();

  constructor(
    origin: string | URL,
    private readonly options: Http2ConnectionOptions,
  ) {
    const url = new URL(origin);
    this.origin = url.origin;
    this.authority = url.host;
    this.connectParams = connectParamsOf(url);
  }

  send(request: LoadRequest): void {
    if (this.destroyed) {
      request.onRequestError(new errors.ClientDestroyedError());
      return;
    }
    this.pending.push({ request, refusals: 0 });
    this.flush();
  }

  /** Cut `request` short (Carrier): its stream is cancelled and it fails with `reason`. */
  cut(request: LoadRequest, reason: Error): void {
    this.live.get(request)?.(reason);
  }

  /** Close the connection: requests on it or waiting for it end through onRequestError (ClientDestroyedError). */
  destroy(): Promise<void> {
    if (this.destroyed) return Promise.resolve();
    this.destroyed = true;
    const error = new errors.ClientDestroyedError();
    for (const { request } of this.pending.splice(0)) request.onRequestError(error);
    for (const fail of [...this.live.values()]) fail(error);
    const session = this.session;
    this.session = null;
    if (session === null || session.destroyed) return Promise.resolve();
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    session.destroy();
    return closed;
  }

  private flush(): void {
    const session = this.session;
    if (session === null) {
      if (!this.connecting && this.pending.length > 0) this.connectSession();
      return;
    }
    while (this.pending.length > 0 && this.open < this.options.maxConcurrentStreams && this.session === session) {
      this.start(session, this.pending.shift()!);
    }
  }

  private connectSession(): void {
    this.connecting = true;
    openSocket(this.options.connect, this.connectParams, (err, socket) => this.onConnected(err, socket));
  }

  private onConnected(err: Error | null, socket: Socket | null): void {
    this.connecting = false;
    if (socket === null) return this.failPending(err!);
    if (this.destroyed) return discardSocket(socket);
    if ((socket as TLSSocket).alpnProtocol !== 'h2') {
      discardSocket(socket);
      this.failPending(new errors.NotSupportedError('the server did not negotiate HTTP/2 on this connection'));
      return;
    }
    // node:http2 loaded when a connection first negotiates h2: a run over HTTP/1.1 never loads it
    // (with node:https beside it, ~10 ms of every start-up).
    const session = process.getBuiltinModule('node:http2').connect(this.origin, { createConnection: () => socket });
    this.session = session;
    this.open = 0;
    // A session ends by GOAWAY (graceful: its streams finish), by error or by close: either way it
    // takes no new streams, and the next request opens the next session.
    const retire = (): void => {
      if (this.session !== session) return;
      this.session = null;
      this.open = 0;
      if (!this.destroyed) this.flush();
    };
    session.on('goaway', retire);
    session.on('close', retire);
    session.on('error', retire); // the streams report their own failure
    session.on('frameError', ignore);
    socket.on('error', ignore);
    // No frame for idleTimeoutMs: closed when no stream is open on it (a long request's silence is
    // its own timeouts' business).
    session.setTimeout(this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, () => {
      if (this.session !== session || this.open > 0) return;
      retire();
      session.close();
    });
    this.flush();
  }

  private start(session: http2.ClientHttp2Session, pending: Pending): void {
    const { request } = pending;
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request(this.headersOf(request.head), { endStream: false });
    } catch (err) {
      // A header or path the checks refuse, or a session that has just gone: the latter is retried.
      if (
        (err as { code?: string }).code === 'ERR_HTTP2_GOAWAY_SESSION' ||
        (err as { code?: string }).code === 'ERR_HTTP2_INVALID_SESSION'
      ) {
        if (this.session === session) this.session = null;
        this.pending.unshift(pending);
        this.flush();
      } else {
        const message = (err as Error).message;
        request.onRequestError(err instanceof errors.UndiciError ? err : new errors.InvalidArgumentError(message));
      }
      return;
    }
    this.open++;
    let ended = false;
    let headersSeen = false;
    // Ends the stream's request exactly once; frees its slot on the session it was opened on.
    const end = (): boolean => {
      if (ended) return false;
      ended = true;
      this.live.delete(request);
      if (this.session === session) this.open--;
      return true;
    };
    const fail = (error: Error): void => {
      if (!end()) return;
      stream.removeAllListeners('data');
      if (!stream.destroyed) stream.close(NGHTTP2_CANCEL);
      request.onRequestError(error);
      if (!this.destroyed) this.flush();
    };
    this.live.set(request, fail);
    request.onRequestSent(this);
    if (ended) return; // cut at once
    const { headersTimeoutMs, bodyTimeoutMs } = this.options;
    if (headersTimeoutMs > 0) stream.setTimeout(headersTimeoutMs);
    stream.on('timeout', () =>
      fail(
        headersSeen
          ? new errors.BodyTimeoutError('HTTP/2 body timeout')
          : new errors.HeadersTimeoutError('HTTP/2 headers timeout'),
      ),
    );
    stream.on('response', (headers) => {
      if (ended) return;
      headersSeen = true;
      stream.setTimeout(bodyTimeoutMs);
      request.onResponseHead(Number(headers[':status']), flatHeaders(headers));
    });
    stream.on('data', (chunk: Buffer) => {
      if (!ended) request.onResponseData(chunk);
    });
    stream.on('end', () => {
      if (!headersSeen) return; // 'close' reports a stream that ended without a response
      if (!end()) return;
      request.onResponseEnd();
      this.flush();
    });
    stream.on('error', ignore); // 'close' carries the outcome, with the reset code
    stream.on('close', () => {
      if (ended) return;
      if (stream.rstCode === NGHTTP2_REFUSED_STREAM && pending.refusals < MAX_REFUSALS && !this.destroyed) {
        // Never processed (RFC 9113 §8.7): send it again, on a new session when this one is going.
        end();
        pending.refusals++;
        this.pending.unshift(pending);
        this.flush();
        return;
      }
      const reason =
        stream.rstCode > 0
          ? `HTTP/2 stream reset with code ${stream.rstCode}`
          : 'HTTP/2 stream closed before the response was complete';
      fail(new errors.SocketError(reason));
    });
    stream.end(request.head.body);
  }

  private headersOf(head: RequestHead): http2.OutgoingHttpHeaders {
    const list = head.headers;
    checkRequestHead(head.path, list);
    const headers: http2.OutgoingHttpHeaders = { ':method': head.method, ':path': head.path };
    headers[':authority'] = this.authority;
    for (let i = 0; i + 1 < list.length; i += 2) {
      const name = list[i]!.toLowerCase();
      if (CONNECTION_SPECIFIC.has(name)) {
        if (name === 'host') headers[':authority'] = list[i + 1]!;
        continue;
      }
      const seen = headers[name];
      headers[name] = seen === undefined ? list[i + 1]! : `${String(seen)}, ${list[i + 1]!}`;
    }
    if (head.traceparent !== null) {
      checkTraceparent(head.traceparent);
      headers.traceparent = head.traceparent;
    }
    const length = head.body.length;
    if (length > 0 || expectsPayload(head.method)) headers['content-length'] = String(length);
    return headers;
  }

  private failPending(error: Error): void {
    for (const { request } of this.pending.splice(0)) request.onRequestError(error);
  }
}

/** A response's headers as the flat [name, value, …] list of the connection contract. */
function flatHeaders(headers: http2.IncomingHttpHeaders): string[] {
  const flat: string[] = [];
  for (const name of Object.keys(headers)) {
    if (name.charCodeAt(0) === 58 /* ':' */) continue;
    const value = headers[name];
    if (Array.isArray(value)) for (const v of value) flat.push(name, v);
    else if (value !== undefined) flat.push(name, String(value));
  }
  return flat;
}
