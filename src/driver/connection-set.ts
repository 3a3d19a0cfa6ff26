/**
 * The driver's connections to the target, each one a Connection of rpcload's contract
 * (connection.ts): rpcload's own (HTTP/1.1 in http1/, HTTP/2 in http2/), or undici's Client behind
 * its adapter (undici-connection.ts); the engine decides which connection carries which request.
 *
 * Why not undici's Pool: the engine already knows when each of its requests ends (the request is
 * told: onResponseEnd or onRequestError), so it can hand the freed connection to the next request directly. The Pool instead
 * scans its clients for a free one on every dispatch and learns of a free connection through a
 * 'drain' event per request; measured on one thread against nginx with 64 connections, the
 * bare dispatch loop costs ~10 % less CPU per request on Clients driven this way.
 *
 * Each connection has `slots`: requests it carries at once (the HTTP/1.1 pipelining depth, or the
 * streams of an HTTP/2 connection). A free slot is taken from a stack (the most recently freed
 * connection first, so a light load keeps using warm sockets and the rest stay unopened: a Client
 * connects at its first request, like the Pool's lazily created ones). A request that finds no
 * free slot waits in a FIFO and takes the next slot freed.
 *
 * Connections are grouped in lanes, one per TLS identity: a connection presents one client
 * certificate, so clients with certificates of their own each need connections of their own. A
 * request names its lane; the common case (no per-client certificates) is one lane for everybody.
 */
import type { buildConnector } from 'undici';
import type { HttpClientName } from '../profile/plan.ts';
import type { Connection, LoadRequest } from './connection.ts';
import { Http1Connection } from './http1/http1-connection.ts';
import { Http2Connection } from './http2/http2-connection.ts';
import type { UndiciConnection } from './undici-connection.ts';

/** A request the set can carry: a LoadRequest, its lane, and the slot it was given. */
export interface ConnectionRequest extends LoadRequest {
  /** The connection carrying it (set by the set; -1 while it waits for one). */
  connection: number;
  /** The lane (TLS identity) whose connections carry it; 0 when every client shares them. */
  lane: number;
}

/** The connections of one TLS identity. */
export interface LaneOptions {
  readonly connections: number;
  /** undici's connector (e.g. the warm connector's, which hands out sockets opened before the clock). */
  readonly connect: buildConnector.connector;
}

export interface ConnectionSetOptions {
  readonly lanes: readonly LaneOptions[];
  /** Requests in flight at once per connection: the pipelining depth, or HTTP/2 streams. */
  readonly slots: number;
  /** Offer HTTP/2 in ALPN, and carry `slots` requests as streams of one connection when it is negotiated. */
  readonly allowH2: boolean;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  /** Close a connection idle this long (see stale-connections.ts). */
  readonly idleTimeoutMs: number;
  /** The client of each connection (see ConnectionClient). */
  readonly client: ConnectionClient;
}

/**
 * What opens each connection: rpcload's own client (the default: http1/ on HTTP/1.1, sessions of
 * Node's http2 module on HTTP/2, see http2/), or undici's Client. undici's Client, with the rest of
 * undici that rpcload's own client does not use, is ~30 ms of CPU to load: only the runs that
 * choose it load it, through `connectionClient`.
 */
export type ConnectionClient = 'rpcload' | { readonly undici: typeof UndiciConnection };

/** The ConnectionClient of `http.client` (loading undici's Client only for "undici"). */
export async function connectionClient(name: HttpClientName): Promise<ConnectionClient> {
  return name === 'undici' ? { undici: (await import('./undici-connection.ts')).UndiciConnection } : 'rpcload';
}

/** One lane: its connections, their free slots and the requests waiting for one. */
class Lane {
  private readonly clients: (Connection | undefined)[];
  /** Free slots as connection indexes (one entry per free slot), the next to take on top. */
  private readonly freeSlots: number[] = [];
  /** Requests waiting for a slot, oldest at `waitingHead`. */
  private waiting: ConnectionRequest[] = [];
  private waitingHead = 0;

  constructor(
    private readonly origin: string,
    private readonly lane: LaneOptions,
    private readonly options: ConnectionSetOptions,
  ) {
    this.clients = new Array<Connection | undefined>(lane.connections).fill(undefined);
    // Connection 0 on top: the first requests go to the first connections (those warmed first).
    for (let c = lane.connections - 1; c >= 0; c--) for (let s = 0; s < options.slots; s++) this.freeSlots.push(c);
  }

  get queued(): number {
    return this.waiting.length - this.waitingHead;
  }

  dispatch(request: ConnectionRequest): void {
    const connection = this.freeSlots.pop();
    if (connection === undefined) {
      request.connection = -1;
      this.waiting.push(request);
      return;
    }
    this.send(connection, request);
  }

  release(connection: number): void {
    const next = this.takeWaiting();
    if (next !== undefined) this.send(connection, next);
    else this.freeSlots.push(connection);
  }

  destroy(): Promise<void>[] {
    this.waiting = [];
    this.waitingHead = 0;
    return this.clients.flatMap((client) => (client === undefined ? [] : [client.destroy()]));
  }

  private send(connection: number, request: ConnectionRequest): void {
    request.connection = connection;
    (this.clients[connection] ??= this.open()).send(request);
  }

  private open(): Connection {
    const { slots, allowH2, headersTimeoutMs, bodyTimeoutMs, idleTimeoutMs } = this.options;
    const common = { headersTimeoutMs, bodyTimeoutMs, idleTimeoutMs, connect: this.lane.connect };
    const origin = this.origin;
    const client = this.options.client;
    if (client !== 'rpcload')
      return new client.undici(origin, { pipelining: slots, allowH2, maxConcurrentStreams: slots, ...common });
    if (allowH2) return new Http2Connection(origin, { maxConcurrentStreams: slots, ...common });
    return new Http1Connection(origin, { pipelining: slots, ...common });
  }

  private takeWaiting(): ConnectionRequest | undefined {
    if (this.waitingHead >= this.waiting.length) return undefined;
    const next = this.waiting[this.waitingHead++]!;
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      // Drop the consumed head now and then, so a long queue does not hold every request ever queued.
      this.waiting = this.waiting.slice(this.waitingHead);
      this.waitingHead = 0;
    }
    return next;
  }
}

export class ConnectionSet {
  private readonly lanes: readonly Lane[];
  private destroyed = false;

  constructor(origin: string, options: ConnectionSetOptions) {
    this.lanes = options.lanes.map((lane) => new Lane(origin, lane, options));
  }

  /** Requests waiting for a free connection. */
  get queued(): number {
    let queued = 0;
    for (const lane of this.lanes) queued += lane.queued;
    return queued;
  }

  /** Send `request` on a free connection of its lane, or queue it for the next one freed. */
  dispatch(request: ConnectionRequest): void {
    if (this.destroyed) {
      request.onRequestError(new Error('the connections were closed'));
      return;
    }
    this.lanes[request.lane]!.dispatch(request);
  }

  /**
   * `request` has ended (onResponseEnd or onRequestError): its slot goes to the oldest
   * waiting request of its lane, or back to the free slots. Call once per dispatched request.
   */
  release(request: ConnectionRequest): void {
    const connection = request.connection;
    request.connection = -1;
    if (connection < 0 || this.destroyed) return;
    this.lanes[request.lane]!.release(connection);
  }

  /** Close every connection; requests on them end through onRequestError, waiting ones are dropped. */
  async destroy(): Promise<void> {
    this.destroyed = true;
    await Promise.all(this.lanes.flatMap((lane) => lane.destroy()));
  }
}
