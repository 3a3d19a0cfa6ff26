/**
 * undici's Client as one of the load's connections (`http.client: "undici"`), behaving as
 * rpcload's own clients do where undici alone would not:
 * - idle connections close after `idleTimeoutMs`, or 2 s before a server's `keep-alive: timeout`
 *   hint (undici's keepAliveTimeout, keepAliveMaxTimeout and keepAliveTimeoutThreshold);
 * - a request that fails when the server closes or resets a connection that had sat idle, before
 *   any byte of its response arrived, is sent once more on a new connection (stale-connections.ts).
 *   undici itself never sends such a request again (its RetryHandler would, but after a response
 *   byte too, and for idempotent methods only); what it does resend — pipelined requests behind
 *   a failed one, which it puts back in its queue — it resends uncounted;
 * - a request undici fails before writing it (its idle connection was reset while the request
 *   waited for it, and undici fails every waiting request then) goes out again, once: rpcload's
 *   own client writes such a request on a new connection too.
 *
 * Each request passes through a small handler of this module's (recycled, one per request on the
 * wire) that watches what undici reports and hands everything on to the request's own handler.
 * Whether a byte of the response arrived is read off the socket (`bytesRead` since the request was
 * written): undici tells a handler nothing until a whole head is parsed.
 */
import type { Socket } from 'node:net';
import { Client, errors, type Dispatcher, type buildConnector } from 'undici';
import { isConnectionLoss, KEEP_ALIVE_HINT_MARGIN_MS, resendsOnFreshConnection } from './stale-connections.ts';
import type { Resendable } from './stale-connections.ts';

export interface UndiciConnectionOptions {
  /** Requests on the wire at once (HTTP/1.1). */
  readonly pipelining: number;
  /** Offer HTTP/2 in ALPN, with this many streams at once when it is negotiated. */
  readonly allowH2: boolean;
  readonly maxConcurrentStreams: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly connect: buildConnector.connector;
}

type Handler = Dispatcher.DispatchHandler & Partial<Resendable>;

/** Adapter handlers kept for reuse per connection (more than its requests on the wire are never needed). */
const MAX_FREE = 64;

export class UndiciConnection {
  readonly client: Client;
  /** The socket undici is using (or used last), and requests written on it. */
  private socket: Socket | null = null;
  private writesOnSocket = 0;
  private readonly free: UndiciRequest[] = [];
  destroyed = false;

  constructor(origin: string, options: UndiciConnectionOptions) {
    const connect: buildConnector.connector = (params, callback) =>
      options.connect(params, (...args) => {
        if (args[0] === null) this.onSocket(args[1]);
        callback(...args);
      });
    this.client = new Client(origin, {
      pipelining: options.pipelining,
      headersTimeout: options.headersTimeoutMs,
      bodyTimeout: options.bodyTimeoutMs,
      // Without a hint: idleTimeoutMs. With one: the hint less the margin, at most idleTimeoutMs.
      keepAliveTimeout: options.idleTimeoutMs,
      keepAliveMaxTimeout: options.idleTimeoutMs,
      keepAliveTimeoutThreshold: KEEP_ALIVE_HINT_MARGIN_MS,
      connect,
      ...(options.allowH2 ? { allowH2: true, maxConcurrentStreams: options.maxConcurrentStreams } : {}),
    });
  }

  dispatch(options: Dispatcher.DispatchOptions, handler: Handler): boolean {
    const request = this.free.pop() ?? new UndiciRequest(this);
    request.begin(options, handler);
    return this.client.dispatch(options, request);
  }

  destroy(): Promise<void> {
    this.destroyed = true;
    return this.client.destroy();
  }

  /** A request is being written: on which socket, and whether that socket had carried a request before. */
  noteWrite(request: UndiciRequest): void {
    request.socket = this.socket;
    request.reusedConnection = this.writesOnSocket > 0;
    request.bytesReadAtWrite = this.socket?.bytesRead ?? 0;
    this.writesOnSocket++;
  }

  recycle(request: UndiciRequest): void {
    if (this.free.length < MAX_FREE) this.free.push(request);
  }

  private onSocket(socket: Socket): void {
    this.socket = socket;
    this.writesOnSocket = 0;
  }
}

/** One request on its way through undici: what undici reports goes to the request's own handler. */
class UndiciRequest implements Dispatcher.DispatchHandler {
  socket: Socket | null = null;
  reusedConnection = false;
  bytesReadAtWrite = 0;
  private options: Dispatcher.DispatchOptions | null = null;
  private handler: Handler | null = null;
  private undiciAbort: ((err?: Error) => void) | null = null;
  /** Waiting (a microtask) to be sent again. */
  private resending = false;
  /** Times undici failed it before writing it (see onError). */
  private unwrittenFailures = 0;

  constructor(private readonly connection: UndiciConnection) {}

  begin(options: Dispatcher.DispatchOptions, handler: Handler): void {
    this.options = options;
    this.handler = handler;
    this.undiciAbort = null;
    this.resending = false;
    this.unwrittenFailures = 0;
  }

  onConnect(abort: (err?: Error) => void): void {
    this.undiciAbort = abort;
    this.connection.noteWrite(this);
    this.handler?.onConnect?.(this.abort);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    return this.handler?.onHeaders?.(statusCode, rawHeaders, resume, statusText) ?? true;
  }

  onData(chunk: Buffer): boolean {
    return this.handler?.onData?.(chunk) ?? true;
  }

  onComplete(trailers: string[] | null): void {
    const handler = this.end();
    handler?.onComplete?.(trailers);
  }

  onError(err: Error): void {
    const handler = this.handler;
    if (handler === null) return;
    const socket = this.socket;
    if (!this.connection.destroyed && isConnectionLoss(err)) {
      if (socket === null) {
        // Never written: undici fails the requests waiting for a connection it finds reset while
        // idle. rpcload's own client writes such requests on a new connection; so does this, once.
        if (this.unwrittenFailures++ === 0) return this.sendAgain();
      } else {
        const h2 = 'alpnProtocol' in socket && socket.alpnProtocol === 'h2';
        const answered = socket.bytesRead > this.bytesReadAtWrite;
        if (!h2 && resendsOnFreshConnection(handler, this.reusedConnection, answered)) {
          handler.onResend!();
          return this.sendAgain();
        }
      }
    }
    this.end()?.onError?.(err);
  }

  /** Send it again, from a microtask: undici calls onError inside loops over its queue that must not see it refilled. */
  private sendAgain(): void {
    this.resending = true;
    this.undiciAbort = null;
    this.socket = null;
    queueMicrotask(this.resend);
  }

  /** The request's abort as its handler holds it: undici's, or the end of a resend not yet made (made once). */
  private readonly abort = (err?: Error): void => {
    if (this.resending) {
      this.resending = false;
      this.end()?.onError?.(err ?? new errors.RequestAbortedError());
    } else this.undiciAbort?.(err);
  };

  private readonly resend = (): void => {
    if (!this.resending) return; // aborted meanwhile
    this.resending = false;
    if (this.connection.destroyed) {
      this.end()?.onError?.(new errors.ClientDestroyedError());
      return;
    }
    this.connection.client.dispatch(this.options!, this);
  };

  /** The request ended: this handler goes back for reuse; returns the request's own handler. */
  private end(): Handler | null {
    const handler = this.handler;
    this.handler = null;
    this.options = null;
    this.undiciAbort = null;
    this.socket = null;
    this.connection.recycle(this);
    return handler;
  }
}
