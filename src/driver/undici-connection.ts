/**
 * undici's Client as one of the load's connections (`http.client: "undici"`): the adapter between
 * rpcload's connection contract (connection.ts) and undici's dispatch API — the one module that
 * implements undici's handler interface (its raw-header callbacks onConnect/onHeaders/onData/
 * onComplete/onError, which undici 7 marks deprecated but which spare the parse of every header
 * into an object that its newer interface costs: ~19 % more CPU per request, docs/performance.md).
 *
 * Where undici alone would behave otherwise than rpcload's own clients, the adapter makes it
 * behave the same:
 * - idle connections close after `idleTimeoutMs`, or 2 s before a server's `keep-alive: timeout`
 *   hint (undici's keepAliveTimeout, keepAliveMaxTimeout and keepAliveTimeoutThreshold);
 * - a request that fails when the server closes or resets a connection that had carried an
 *   earlier request, before any byte of its response arrived, is sent once more on a new
 *   connection (stale-connections.ts). undici itself never sends such a request again (its
 *   RetryHandler would, but after a response byte too, and for idempotent methods only); what it
 *   does resend — pipelined requests behind a failed one, which it puts back in its queue — it
 *   resends uncounted;
 * - a request undici fails before writing it (its idle connection was reset while the request
 *   waited for it, and undici fails every waiting request then) goes out again, once: rpcload's
 *   own client writes such a request on a new connection too;
 * - the traceparent kept apart from the header list (RequestHead) goes at the list's end.
 *
 * Each request passes through a small handler of this module's (recycled, one per request on the
 * wire) that watches what undici reports and tells the request. Whether a byte of the response
 * arrived is read off the socket (`bytesRead` since the request was written): undici tells a
 * handler nothing until a whole head is parsed.
 */
import type { Socket } from 'node:net';
import { Client, errors, type Dispatcher, type buildConnector } from 'undici';
import type { Carrier, Connection, LoadRequest } from './connection.ts';
import { isConnectionLoss, KEEP_ALIVE_HINT_MARGIN_MS, resendsOnFreshConnection } from './stale-connections.ts';

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

/** Adapter handlers kept for reuse per connection (more than its requests on the wire are never needed). */
const MAX_FREE = 64;

export class UndiciConnection implements Connection {
  readonly client: Client;
  /**
   * undici holds back every other request while a non-idempotent one (a POST) is in flight on an
   * HTTP/2 connection. rpcload sends a request again only where it was provably not processed, so
   * on HTTP/2 its POSTs may share the connection.
   */
  readonly idempotent: boolean;
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
    this.idempotent = options.allowH2;
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

  send(request: LoadRequest): void {
    const adapter = this.free.pop() ?? new UndiciRequest(this);
    adapter.begin(request);
    this.client.dispatch(adapter.options, adapter);
  }

  destroy(): Promise<void> {
    this.destroyed = true;
    return this.client.destroy();
  }

  /** A request is being written: on which socket, and whether that socket had carried a request before. */
  noteWrite(adapter: UndiciRequest): void {
    adapter.socket = this.socket;
    adapter.reusedConnection = this.writesOnSocket > 0;
    adapter.bytesReadAtWrite = this.socket?.bytesRead ?? 0;
    this.writesOnSocket++;
  }

  recycle(adapter: UndiciRequest): void {
    if (this.free.length < MAX_FREE) this.free.push(adapter);
  }

  private onSocket(socket: Socket): void {
    this.socket = socket;
    this.writesOnSocket = 0;
  }
}

/** undici's dispatch options for one request, refilled by each request the adapter handler carries. */
interface RequestOptions extends Dispatcher.DispatchOptions {
  path: string;
  method: string;
  headers: string[];
  body: Buffer;
}

const NO_HEADERS: string[] = [];
const latin1 = (bytes: Buffer): string => bytes.toString('latin1');
const EMPTY = Buffer.alloc(0);

/** One request on its way through undici: what undici reports goes to the request, as the contract says it. */
class UndiciRequest implements Dispatcher.DispatchHandler, Carrier {
  readonly options: RequestOptions = { path: '', method: 'POST', headers: NO_HEADERS, body: EMPTY };
  socket: Socket | null = null;
  reusedConnection = false;
  bytesReadAtWrite = 0;
  private request: LoadRequest | null = null;
  private undiciAbort: ((err?: Error) => void) | null = null;
  /** Waiting (a microtask) to be sent again. */
  private resending = false;
  /** Times undici failed it before writing it (see onError). */
  private unwrittenFailures = 0;
  /** The response head as strings, refilled per response (the contract's list is valid during the call only). */
  private readonly headers: string[] = [];

  constructor(private readonly connection: UndiciConnection) {}

  begin(request: LoadRequest): void {
    const { head } = request;
    const options = this.options;
    options.method = head.method;
    options.path = head.path;
    const { headers, traceparent } = head;
    options.headers = traceparent === null ? (headers as string[]) : headers.concat('traceparent', traceparent);
    options.body = head.body;
    if (this.connection.idempotent) options.idempotent = true;
    this.request = request;
    this.undiciAbort = null;
    this.resending = false;
    this.unwrittenFailures = 0;
  }

  onConnect(abort: (err?: Error) => void): void {
    this.undiciAbort = abort;
    this.connection.noteWrite(this);
    this.request?.onRequestSent(this);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    const request = this.request;
    if (request === null || statusCode < 200) return true; // 1xx: the final response is still to come
    const headers = this.headers;
    headers.length = 0;
    // Names latin1, values UTF-8: what rpcload's HTTP/1.1 parser hands over.
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) headers.push(latin1(rawHeaders[i]!), String(rawHeaders[i + 1]));
    request.onResponseHead(statusCode, headers);
    headers.length = 0;
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.request?.onResponseData(chunk);
    return true;
  }

  onComplete(): void {
    this.end()?.onResponseEnd();
  }

  onError(err: Error): void {
    const request = this.request;
    if (request === null) return;
    const socket = this.socket;
    if (!this.connection.destroyed && isConnectionLoss(err)) {
      if (socket === null) {
        // Never written: undici fails the requests waiting for a connection it finds reset while
        // idle. rpcload's own client writes such requests on a new connection; so does this, once.
        if (this.unwrittenFailures++ === 0) return this.sendAgain();
      } else {
        const h2 = 'alpnProtocol' in socket && socket.alpnProtocol === 'h2';
        const answered = socket.bytesRead > this.bytesReadAtWrite;
        if (!h2 && resendsOnFreshConnection(request, this.reusedConnection, answered)) {
          request.onResend();
          return this.sendAgain();
        }
      }
    }
    this.end()?.onRequestError(err);
  }

  /** Cut the request short (Carrier): undici's abort, or the end of a resend not yet made. */
  cut(_request: LoadRequest, reason: Error): void {
    if (this.resending) {
      this.resending = false;
      this.end()?.onRequestError(reason);
    } else this.undiciAbort?.(reason);
  }

  /** Send it again from a microtask: undici calls onError inside loops over its queue that must not see it refilled. */
  private sendAgain(): void {
    this.resending = true;
    this.undiciAbort = null;
    this.socket = null;
    queueMicrotask(this.resend);
  }

  private readonly resend = (): void => {
    if (!this.resending) return; // cut meanwhile
    this.resending = false;
    if (this.connection.destroyed) {
      this.end()?.onRequestError(new errors.ClientDestroyedError());
      return;
    }
    this.connection.client.dispatch(this.options, this);
  };

  /** The request ended: this handler goes back for reuse; returns the request. */
  private end(): LoadRequest | null {
    const request = this.request;
    this.request = null;
    this.undiciAbort = null;
    this.socket = null;
    this.options.headers = NO_HEADERS;
    this.options.body = EMPTY;
    this.connection.recycle(this);
    return request;
  }
}
