/**
 * rpcload's HTTP/1.1 client: one keep-alive connection to the target, implementing rpcload's
 * connection contract (connection.ts) — `send(request)`, `destroy()` — and telling each request
 * what happened through its own methods.
 *
 * Why it exists: a bare undici dispatch loop, with no work of rpcload's around it, already costs
 * about as much CPU per request as autocannon's whole request loop (docs/performance.md). This
 * client writes requests encoded once (request-encoder.ts) and reads responses with a strict
 * incremental parser (response-parser.ts); it fails with undici's error classes where undici
 * would, so a request's outcome does not depend on the client.
 *
 * Behaviour, kept close to undici's:
 * - Sockets come from the connector it is given (undici's `buildConnector`, or the warm
 *   connector's): TLS trust, client certificates, connect timeouts and keep-alive are its business.
 *   A socket from connection-socket.ts's directReadConnector hands its bytes straight to the
 *   parser (readDirect), without the Readable stream's 'data' events; any other emits 'data'.
 *   A fresh socket gets its first requests at once; on a socket that has carried a response, the
 *   next requests are written in this turn's check phase (setImmediate, one for all connections),
 *   after the poll phase has read whatever else arrived — so bytes a server sends after a response
 *   are never taken for the next request's response (undici waits for the same reason).
 * - `pipelining` requests may be on the wire at once; 1 by default.
 * - A response without a request, or bytes after a response with none outstanding, close the
 *   connection; requests not yet written go out on a new one.
 * - A response saying `connection: close` (or HTTP/1.0 without keep-alive) closes the connection
 *   after it; pipelined requests behind it were not processed (RFC 9112 §9.6) and go out again on a
 *   new connection. An idle connection is closed after `idleTimeoutMs`, sooner when a `keep-alive:
 *   timeout=N` hint says so (stale-connections.ts); a hint too short to reuse the connection lets the
 *   requests already on the wire finish, and writes no more on it.
 * - A request that fails when the server closes or resets a connection that had sat idle, before
 *   any byte of its response, is sent once more on a new connection (stale-connections.ts).
 * - Headers and body timeouts are checked by one sweep every TICK_MS for all connections, not a
 *   timer per request; they fire late by at most two ticks, never early.
 * - A request cut short (the carrier handed to onRequestSent) fails and closes its connection, as
 *   undici's abort does.
 */
import type { Socket } from 'node:net';
import { errors, type buildConnector } from 'undici';
import type { Carrier, Connection, LoadRequest } from '../connection.ts';
import { connectParamsOf, discardSocket, openSocket, readDirect, stopReading } from '../connection-socket.ts';
import { idleLimitMs, resendsOnFreshConnection } from '../stale-connections.ts';
import { encodeRequest, TracedRequestBuffer } from './request-encoder.ts';
import { Expectation, ResponseParser, type ResponseSink } from './response-parser.ts';

export interface Http1ConnectionOptions {
  /** Requests on the wire at once. */
  readonly pipelining: number;
  /** From writing a request until its response head is complete (0 = none). */
  readonly headersTimeoutMs: number;
  /** Longest pause between body bytes (0 = none). */
  readonly bodyTimeoutMs: number;
  /** Opens a socket to the origin (undici's connector signature). */
  readonly connect: buildConnector.connector;
  /** Close the connection once idle this long (less when the server's keep-alive hint says so); default 4 s. */
  readonly idleTimeoutMs?: number;
}

/** How often timeouts and idle connections are checked. */
const TICK_MS = 250;
/** undici's default idle timeout. */
const DEFAULT_IDLE_TIMEOUT_MS = 4000;

/** What a teardown does with the requests on the wire. */
const FAIL_RUNNING = 0;
/** The server closed or reset the socket: requests that met a stale connection go out once more. */
const RESEND_STALE = 1;
/** The server said it closes (`connection: close`): the requests behind its response, never processed, go out again. */
const RESEND_UNPROCESSED = 2;
type TeardownMode = typeof FAIL_RUNNING | typeof RESEND_STALE | typeof RESEND_UNPROCESSED;

/** Run clock of the sweeps (performance.now() ms as of the last sweep, or of the first connection). */
let coarseNowMs = performance.now();
const live = new Set<Http1Connection>();
let sweepTimer: NodeJS.Timeout | null = null;

function sweep(): void {
  coarseNowMs = performance.now();
  for (const connection of live) connection.checkTimers(coarseNowMs);
}

function track(connection: Http1Connection): void {
  live.add(connection);
  if (sweepTimer !== null) return;
  coarseNowMs = performance.now();
  sweepTimer = setInterval(sweep, TICK_MS);
  sweepTimer.unref();
}

function untrack(connection: Http1Connection): void {
  live.delete(connection);
  if (live.size > 0 || sweepTimer === null) return;
  clearInterval(sweepTimer);
  sweepTimer = null;
}

/** Connections with requests to write once this turn has read what arrived, written in one check phase. */
let toFlush: Http1Connection[] = [];
let spare: Http1Connection[] = [];
let flushScheduled = false;

function flushAll(): void {
  flushScheduled = false;
  const list = toFlush;
  toFlush = spare;
  for (const connection of list) connection.flush();
  list.length = 0;
  spare = list;
}

const ignore = (): void => undefined;

export class Http1Connection implements Connection, Carrier, ResponseSink {
  private readonly hostHeader: string;
  private readonly connectParams: buildConnector.Options;
  private readonly parser: ResponseParser;
  /** Where requests with a traceparent are encoded, while no write holds it (request-encoder.ts). */
  private readonly traced = new TracedRequestBuffer();
  private socket: Socket | null = null;
  private connecting = false;
  private destroyed = false;
  /** Has the current socket carried a request? (a fresh one is written to at once) */
  private used = false;
  /**
   * The first request written on the current socket, while it is on the wire: every other one met a
   * connection that had carried a request. (Cleared when it ends: the engine recycles its requests.)
   */
  private firstOnSocket: LoadRequest | null = null;
  /** The current socket must not carry another request (the server's keep-alive hint is too short to reuse it). */
  private closing = false;
  /** Queued in toFlush. */
  private flushQueued = false;
  /** Requests not yet written, oldest first. */
  private readonly pending: LoadRequest[] = [];
  /** Requests written and not yet answered, oldest first. */
  private readonly running: LoadRequest[] = [];
  /** Coarse times (see coarseNowMs): the oldest unanswered request's wait began; the last body bytes; idle since. */
  private waitSinceMs = 0;
  private bodySinceMs = 0;
  private idleSinceMs = 0;
  /** How long this socket may stay idle (stale-connections.ts idleLimitMs). */
  private keepAliveMs: number;
  /** The sweep closes an idle connection this much before keepAliveMs runs out, so that it is closed in time. */
  private readonly idleMarginMs: number;

  constructor(
    origin: string | URL,
    private readonly options: Http1ConnectionOptions,
  ) {
    const url = new URL(origin);
    this.hostHeader = `${url.hostname}${url.port ? `:${url.port}` : ''}`;
    this.connectParams = connectParamsOf(url);
    this.parser = new ResponseParser(this);
    this.keepAliveMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.idleMarginMs = Math.min(TICK_MS, this.keepAliveMs / 2);
  }

  send(request: LoadRequest): void {
    if (this.destroyed) {
      request.onRequestError(new errors.ClientDestroyedError());
      return;
    }
    this.pending.push(request);
    if (this.socket === null) {
      if (!this.connecting) this.open();
    } else if (!this.used) this.flush();
    else this.scheduleFlush();
  }

  /** Close the connection: requests on it or waiting for it end through onRequestError (ClientDestroyedError). */
  destroy(): Promise<void> {
    if (this.destroyed) return Promise.resolve();
    this.destroyed = true;
    untrack(this);
    const socket = this.socket;
    const closed =
      socket === null || socket.destroyed
        ? Promise.resolve()
        : new Promise<void>((resolve) => socket.once('close', () => resolve()));
    this.failAll(new errors.ClientDestroyedError());
    return closed;
  }

  /** Write queued requests, up to `pipelining` on the wire (called by the check-phase flush, or at once on a fresh socket). */
  flush(): void {
    this.flushQueued = false;
    const socket = this.socket;
    if (socket === null || this.closing) return;
    if (this.used && this.running.length === 0 && this.idleTooLong(performance.now())) {
      // Idle past its limit (the sweep, late under load, has not closed it yet): the server may be closing it now.
      this.teardown(null, FAIL_RUNNING);
      return;
    }
    const { pipelining } = this.options;
    const corked = pipelining > 1 && this.pending.length > 1;
    if (corked) socket.cork();
    while (this.pending.length > 0 && this.running.length < pipelining && this.socket === socket) {
      const request = this.pending.shift()!;
      let bytes: Buffer;
      try {
        bytes = encodeRequest(this.hostHeader, request.head, this.traced);
      } catch (err) {
        request.onRequestError(err as Error);
        continue;
      }
      if (this.running.length === 0) this.waitSinceMs = coarseNowMs;
      this.running.push(request);
      if (!this.used) this.firstOnSocket = request;
      this.used = true;
      request.onRequestSent(this);
      if (this.socket !== socket || this.running.at(-1) !== request) continue; // cut at once
      socket.write(bytes);
      // Not all written at once (or corked): the write holds the bytes until it is done.
      if (socket.writableLength !== 0) this.traced.release();
    }
    if (corked) socket.uncork();
  }

  /** The sweep: fail a request past its headers or body timeout; close a connection idle past its keep-alive. */
  checkTimers(nowMs: number): void {
    if (this.socket === null) return;
    if (this.running.length === 0) {
      // Closed before its limit (the sweep runs every TICK_MS), so the server never closes it under a request.
      const idle = this.pending.length === 0 && this.parser.idle;
      if (idle && this.idleTooLong(nowMs)) this.teardown(null, FAIL_RUNNING);
      return;
    }
    const { headersTimeoutMs, bodyTimeoutMs } = this.options;
    if (this.parser.inBody) {
      if (bodyTimeoutMs > 0 && nowMs - this.bodySinceMs >= bodyTimeoutMs + TICK_MS)
        this.teardown(new errors.BodyTimeoutError(), FAIL_RUNNING);
    } else if (headersTimeoutMs > 0 && nowMs - this.waitSinceMs >= headersTimeoutMs + TICK_MS)
      this.teardown(new errors.HeadersTimeoutError(), FAIL_RUNNING);
  }

  /** Idle long enough at `nowMs` to be closed now, before its limit runs out (the sweep runs every TICK_MS). */
  private idleTooLong(nowMs: number): boolean {
    return nowMs - this.idleSinceMs >= this.keepAliveMs - this.idleMarginMs;
  }

  // The parser's sink (ResponseSink). Each returns whether the connection is still open, so the parse stops when it is not.

  onMessageBegin(): Expectation {
    if (this.running.length === 0) return Expectation.UNEXPECTED;
    return this.running[0]!.head.method === 'HEAD' ? Expectation.NO_BODY : Expectation.BODY;
  }

  onHead(statusCode: number, headers: string[]): boolean {
    this.bodySinceMs = coarseNowMs;
    // Names latin1, values UTF-8: as undici's raw header Buffers read with toString().
    this.running[0]!.onResponseHead(statusCode, headers);
    return this.socket !== null;
  }

  onBody(chunk: Buffer): boolean {
    this.bodySinceMs = coarseNowMs;
    this.running[0]!.onResponseData(chunk);
    return this.socket !== null;
  }

  onMessageComplete(_trailers: string[], keepAlive: boolean): boolean {
    const request = this.running.shift()!;
    if (request === this.firstOnSocket) this.firstOnSocket = null;
    this.idleSinceMs = this.waitSinceMs = coarseNowMs;
    const hintMs = this.parser.keepAliveTimeoutMs;
    if (hintMs !== null) this.keepAliveMs = idleLimitMs(this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, hintMs);
    // A hint too short to reuse the connection: what is on the wire is answered on it, nothing more is written.
    if (!keepAlive || this.keepAliveMs <= 0) this.closing = true;
    request.onResponseEnd();
    if (this.socket === null) return false;
    if (!keepAlive) this.teardown(null, RESEND_UNPROCESSED);
    else if (this.closing && this.running.length === 0) this.teardown(null, FAIL_RUNNING);
    return this.socket !== null;
  }

  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    toFlush.push(this);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushAll);
    }
  }

  private open(): void {
    this.connecting = true;
    track(this);
    openSocket(this.options.connect, this.connectParams, (err, socket) => this.onConnected(err, socket));
  }

  private onConnected(err: Error | null, socket: Socket | null): void {
    this.connecting = false;
    if (socket === null) return this.failPending(err!);
    if (this.destroyed) return discardSocket(socket);
    if ((socket as Socket & { alpnProtocol?: string | false }).alpnProtocol === 'h2') {
      discardSocket(socket);
      this.failPending(new errors.NotSupportedError('the server chose HTTP/2; this client speaks HTTP/1.1 only'));
      return;
    }
    this.socket = socket;
    this.used = false;
    this.firstOnSocket = null;
    this.closing = false;
    this.keepAliveMs = this.options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.parser.reset();
    this.idleSinceMs = coarseNowMs;
    socket.on('end', this.onSocketEnd);
    socket.on('error', this.onSocketError);
    socket.on('close', this.onSocketClose);
    // Last: a direct-read socket hands over at once what it read while parked, which may close it.
    if (!readDirect(socket, this.onSocketData)) socket.on('data', this.onSocketData);
    if (this.socket === socket) this.flush();
  }

  private readonly onSocketData = (chunk: Buffer): void => {
    const error = this.parser.execute(chunk);
    if (error !== null) this.teardown(error, FAIL_RUNNING);
  };

  /** The server closed its side: a body lasting until the close is complete; anything else under way was cut short. */
  private readonly onSocketEnd = (): void => {
    const error = this.parser.finish();
    this.teardown(error ?? new errors.SocketError('other side closed'), RESEND_STALE);
  };

  private readonly onSocketError = (err: Error): void => {
    // As undici: a reset right after a response that closes the connection ends that response, not an error.
    if ((err as { code?: string }).code === 'ECONNRESET' && this.parser.closesConnection) {
      const error = this.parser.finish();
      this.teardown(error ?? err, RESEND_STALE);
      return;
    }
    this.teardown(err, RESEND_STALE);
  };

  private readonly onSocketClose = (): void => {
    const error = this.parser.finish();
    this.teardown(error ?? new errors.SocketError('closed'), RESEND_STALE);
  };

  /** Cut `request` short (Carrier): it fails with `reason`, and the connection closes, as undici's abort does. */
  cut(request: LoadRequest, reason: Error): void {
    const index = this.running.indexOf(request);
    if (index < 0) return; // already ended
    this.running.splice(index, 1);
    if (request === this.firstOnSocket) this.firstOnSocket = null;
    request.onRequestError(reason);
    this.teardown(new errors.SocketError('closed: an earlier request on this connection was cut short'), FAIL_RUNNING);
  }

  /**
   * Close the socket. Requests on the wire fail with `error` (nothing fails when none are: a
   * server closing an idle connection is no one's error), except those `mode` sends again;
   * requests not yet written go out on a new connection.
   */
  private teardown(error: Error | null, mode: TeardownMode): void {
    if (this.socket === null) return;
    const responseStarted = !this.parser.idle; // the head request's response (read before detach resets the parser)
    this.detach();
    const requests = this.running.splice(0);
    const failure = error ?? new errors.SocketError('closed');
    let again = 0;
    for (let i = 0; i < requests.length; i++) {
      const request = requests[i]!;
      // A request behind the head had no byte of its response; every one but the socket's first met a used connection.
      const reused = request !== this.firstOnSocket;
      const stale = mode === RESEND_STALE && resendsOnFreshConnection(request, reused, i === 0 && responseStarted);
      if (mode === RESEND_UNPROCESSED || stale) {
        // Back to the front of the queue, in their order, ahead of requests not yet written.
        this.pending.splice(again++, 0, request);
        if (stale) request.onResend();
      } else request.onRequestError(failure);
    }
    if (this.pending.length > 0 && !this.destroyed && !this.connecting) this.open();
  }

  private failRunning(error: Error): void {
    for (const request of this.running.splice(0)) request.onRequestError(error);
  }

  private failPending(error: Error): void {
    for (const request of this.pending.splice(0)) request.onRequestError(error);
  }

  private failAll(error: Error): void {
    if (this.socket !== null) this.detach();
    this.failRunning(error);
    this.failPending(error);
  }

  /** Stop listening to the socket and destroy it; its events are no longer ours. */
  private detach(): void {
    const socket = this.socket!;
    this.socket = null;
    stopReading(socket);
    socket.off('data', this.onSocketData);
    socket.off('end', this.onSocketEnd);
    socket.off('error', this.onSocketError);
    socket.off('close', this.onSocketClose);
    socket.on('error', ignore);
    socket.destroy();
    this.parser.reset();
  }
}
