/**
 * Keep-alive connections a server may close under a request, and the one resend that makes up
 * for it, as every load connection (rpcload's HTTP/1.1 client and the undici adapter) applies them.
 *
 * A server closes an idle keep-alive connection when its own idle timeout runs out (nginx's
 * `keepalive_timeout`, HAProxy's `timeout http-keep-alive`, a load balancer's 60 s), usually
 * without saying how long that is. A request written at that moment meets a socket the server has
 * already closed and fails, though the server never saw it. Two defences:
 * - rpcload closes a connection itself once it has been idle for `http.idleTimeout`, or for 2 s
 *   less than a `Keep-Alive: timeout=N` hint says (undici's margin), whichever is shorter;
 * - a request that fails on a connection that had carried an earlier request (a kept-alive one,
 *   which may have sat idle), before any byte of its response arrived, is sent once more, on a new
 *   connection. (A connection opened for the request, or opened just before the run and parked
 *   for milliseconds, is not suspect: its failure is the server's.) Never after a byte of the
 *   response (the server answered it), never twice (a server that resets every request is a
 *   finding). It is counted (the result's `staleConnectionRetries`); its latency still runs from
 *   its intended start, which the engine keeps.
 */

/** How much sooner than a server's `Keep-Alive: timeout=N` hint a connection is closed (undici's default). */
export const KEEP_ALIVE_HINT_MARGIN_MS = 2000;

/** How long a connection may stay idle: `http.idleTimeout`, or less when the server's hint (ms; null: none) says. */
export function idleLimitMs(idleTimeoutMs: number, hintMs: number | null): number {
  return hintMs === null ? idleTimeoutMs : Math.min(idleTimeoutMs, hintMs - KEEP_ALIVE_HINT_MARGIN_MS);
}

/** A request a connection may send once more when it met a stale connection. */
export interface Resendable {
  /** Times it was sent again so far. */
  readonly resends: number;
  /** It goes out again on a new connection (counted as a stale-connection retry). */
  onResend(): void;
}

/**
 * Whether a request that failed when the server closed or reset its connection goes out again:
 * only when no byte of its response had arrived (`answered` false), its connection had carried a
 * request before it was written (`reused`), and it was not sent again before. Pure.
 */
export function resendsOnFreshConnection(request: Resendable, reused: boolean, answered: boolean): boolean {
  return reused && !answered && request.resends === 0;
}

/** Error codes of a connection the server closed or reset under a request (undici's SocketError, the socket's own). */
const CONNECTION_LOSS = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** Whether `err` says the connection was closed or reset under the request (not a timeout, an abort, a parse error). */
export function isConnectionLoss(err: Error): boolean {
  return CONNECTION_LOSS.has((err as { code?: string }).code ?? '');
}
