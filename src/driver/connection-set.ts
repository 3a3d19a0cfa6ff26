/**
 * The driver's connections to the target: one undici Client (or one of the fast client's
 * connections, see http1/http1-connection.ts) per connection, with the engine deciding which
 * connection carries which request.
 *
 * Why not undici's Pool: the engine already knows when each of its requests ends (its handler is
 * called), so it can hand the freed connection to the next request directly. The Pool instead
 * scans its clients for a free one on every dispatch and learns of a free connection through a
 * 'drain' event per request; measured on one thread against nginx with 64 connections, the
 * bare dispatch loop costs ~10 % less CPU per request on Clients driven this way.
 *
 * Each connection has `pipelining` slots. A free slot is taken from a stack (the most recently
 * freed connection first, so a light load keeps using warm sockets and the rest stay unopened:
 * a Client connects at its first request, like the Pool's lazily created ones). A request that
 * finds no free slot waits in a FIFO and takes the next slot freed.
 */
import { Client, type Dispatcher, type buildConnector } from 'undici';
import type { HttpClientName, Plan } from '../profile/plan.ts';
import { Http1Connection } from './http1/http1-connection.ts';

/**
 * The HTTP client that carries `plan`'s API calls (the result file records it): the plan's
 * `http.client`. Token requests always go through undici.
 */
export function loadClient(plan: Plan): HttpClientName {
  return plan.http.client;
}

/** What the set asks of one connection: the part of undici's Client it uses, which the fast client also has. */
interface Connection {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean;
  destroy(): Promise<void>;
}

/** A request the set can carry: its undici options and handler, and the slot it was given. */
export interface ConnectionRequest extends Dispatcher.DispatchHandler {
  readonly options: Dispatcher.DispatchOptions;
  /** The connection carrying it (set by the set; -1 while it waits for one). */
  connection: number;
}

export interface ConnectionSetOptions {
  readonly connections: number;
  readonly pipelining: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  /** undici's connector (e.g. the warm connector's, which hands out sockets opened before the clock). */
  readonly connect: buildConnector.connector;
  /** The client of each connection: rpcload's own HTTP/1.1 client (http1/) or undici's Client (the default). */
  readonly client?: HttpClientName;
}

export class ConnectionSet {
  private readonly clients: (Connection | undefined)[];
  /** Free slots as connection indexes (one entry per free slot), the next to take on top. */
  private readonly freeSlots: number[] = [];
  /** Requests waiting for a slot, oldest at `waitingHead`. */
  private waiting: ConnectionRequest[] = [];
  private waitingHead = 0;
  private destroyed = false;

  constructor(
    private readonly origin: string,
    private readonly options: ConnectionSetOptions,
  ) {
    this.clients = new Array<Connection | undefined>(options.connections).fill(undefined);
    // Connection 0 on top: the first requests go to the first connections (those warmed first).
    for (let c = options.connections - 1; c >= 0; c--) for (let s = 0; s < options.pipelining; s++) this.freeSlots.push(c);
  }

  /** Requests waiting for a free connection. */
  get queued(): number {
    return this.waiting.length - this.waitingHead;
  }

  /** Send `request` on a free connection, or queue it for the next one freed. */
  dispatch(request: ConnectionRequest): void {
    if (this.destroyed) {
      request.onError?.(new Error('the connections were closed'));
      return;
    }
    const connection = this.freeSlots.pop();
    if (connection === undefined) {
      request.connection = -1;
      this.waiting.push(request);
      return;
    }
    this.send(connection, request);
  }

  /**
   * `request` has ended (its handler saw onComplete or onError): its slot goes to the oldest
   * waiting request, or back to the free slots. Call once per dispatched request.
   */
  release(request: ConnectionRequest): void {
    const connection = request.connection;
    request.connection = -1;
    if (connection < 0 || this.destroyed) return;
    const next = this.takeWaiting();
    if (next !== undefined) this.send(connection, next);
    else this.freeSlots.push(connection);
  }

  /** Close every connection; requests on them end through onError, waiting ones are dropped. */
  async destroy(): Promise<void> {
    this.destroyed = true;
    this.waiting = [];
    this.waitingHead = 0;
    await Promise.all(this.clients.flatMap((client) => (client === undefined ? [] : [client.destroy()])));
  }

  private send(connection: number, request: ConnectionRequest): void {
    request.connection = connection;
    const client = (this.clients[connection] ??= this.open());
    // The return value says the Client is at its pipelining depth; the slots already keep it there.
    client.dispatch(request.options, request);
  }

  private open(): Connection {
    const { pipelining, headersTimeoutMs, bodyTimeoutMs, connect } = this.options;
    if (this.options.client === 'fast') return new Http1Connection(this.origin, { pipelining, headersTimeoutMs, bodyTimeoutMs, connect });
    return new Client(this.origin, { pipelining, headersTimeout: headersTimeoutMs, bodyTimeout: bodyTimeoutMs, connect });
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
