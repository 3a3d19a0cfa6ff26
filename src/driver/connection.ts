/**
 * rpcload's connection contract: what a load connection is asked to carry and what it reports
 * back. rpcload's own clients implement it natively — HTTP/1.1 (http1/http1-connection.ts) and
 * HTTP/2 sessions of Node's http2 module (http2/http2-connection.ts) — and undici's Client sits
 * behind an adapter (undici-connection.ts), the one module that speaks undici's handler interface.
 * The engine's requests (in-flight-request.ts) are LoadRequests; the connection set
 * (connection-set.ts) hands them to connections.
 *
 * A request reports through its own methods, never through a callback object made for it: the hot
 * path allocates nothing per request (the engine recycles its requests). Every request gets
 * exactly one end: onResponseEnd or onRequestError.
 */
import type { RequestHead } from './request-head.ts';
import type { Resendable } from './stale-connections.ts';

/** The connection carrying a request, as the request sees it (one object per connection, not per request). */
export interface Carrier {
  /**
   * Cut `request` short: it fails (onRequestError with `reason`) and its connection closes, as
   * undici's abort does; nothing once it has ended.
   */
  cut(request: LoadRequest, reason: Error): void;
}

/** What a connection tells a request about its exchange, in this order. */
export interface ResponseHandler {
  /** It was written to a connection (again, when one sends it once more); `carrier` can cut it short. */
  onRequestSent(carrier: Carrier): void;
  /** The final (non-1xx) response head: status, and headers as a flat [name, value, …] list valid during the call. */
  onResponseHead(status: number, headers: readonly string[]): void;
  /** A piece of the response body (valid during the call only). */
  onResponseData(chunk: Buffer): void;
  /** The response is complete. */
  onResponseEnd(): void;
  /** The request failed (undici's error classes and codes, whatever the client: outcomes key on them). */
  onRequestError(error: Error): void;
}

/** A request a connection carries: its head, what it is told, whether it may go once more (stale-connections.ts). */
export interface LoadRequest extends ResponseHandler, Resendable {
  readonly head: RequestHead;
}

/** One connection to the target (an HTTP/1.1 keep-alive connection, or an HTTP/2 connection's sessions). */
export interface Connection {
  /** Send `request` after those already on this connection (it opens a socket when it has none). */
  send(request: LoadRequest): void;
  /** Close it: requests on it or waiting for it end through onRequestError (undici's ClientDestroyedError). */
  destroy(): Promise<void>;
}
