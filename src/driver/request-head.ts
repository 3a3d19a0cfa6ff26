/**
 * The head of one API request as the load's connections send it, and the rules every connection
 * applies to it, whatever its protocol: rpcload's HTTP/1.1 encoder (http1/request-encoder.ts),
 * its HTTP/2 sessions (http2/http2-connection.ts) and the undici adapter (undici-connection.ts).
 *
 * The rules are undici's (lib/core/request.js and util.js), so that a request is refused, framed
 * and addressed the same on every client: a path of visible latin1 characters, header names that
 * are tokens, values without CR, LF or NUL (a hostile token endpoint cannot inject headers through
 * an access token); a Content-Length on the methods that expect a payload even when the body is
 * empty; a `host` in the list (a sign module's) as the request's Host, never a second one. (undici's
 * own HTTP/2 client, under `http.client: "undici"`, builds its head itself: it gives a Content-Length
 * to POST, PUT and PATCH only.)
 */
import { errors } from 'undici';

/** What a connection sends for one request. */
export interface RequestHead {
  readonly method: string;
  readonly path: string;
  /**
   * Flat [name, value, …]. The engine hands the same array for every request of a client's token,
   * so the HTTP/1.1 encoder keeps what it encoded by the list's identity: a list is never changed
   * once handed over.
   */
  readonly headers: readonly string[];
  /**
   * The request's own W3C traceparent, apart from `headers` (every request has its own, and in
   * the list it would make each list new): sent after them; null for none.
   */
  readonly traceparent: string | null;
  /** The body exactly as sent (taken to be immutable once handed over). */
  readonly body: Buffer;
}

const INVALID_PATH = /[^\u0021-\u00ff]/;
const TOKEN_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const INVALID_VALUE = /[^\t\u0020-\u007e\u0080-\u00ff]/;

/** Methods that carry a Content-Length even with an empty body (undici's HTTP/1.1 list: `POST` and its like). */
export function expectsPayload(method: string): boolean {
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') return true;
  return method === 'QUERY' || method === 'PROPFIND' || method === 'PROPPATCH';
}

/** Throws undici's InvalidArgumentError for a path or header (flat [name, value, …] list) undici would refuse. */
export function checkRequestHead(path: string, headers: readonly string[]): void {
  if (INVALID_PATH.test(path)) throw new errors.InvalidArgumentError('invalid request path');
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!;
    if (!TOKEN_NAME.test(name)) throw new errors.InvalidArgumentError('invalid header key');
    if (INVALID_VALUE.test(headers[i + 1]!)) throw new errors.InvalidArgumentError(`invalid ${name} header`);
  }
}

/** Throws undici's InvalidArgumentError for a traceparent value undici would refuse in the list. */
export function checkTraceparent(traceparent: string): void {
  if (INVALID_VALUE.test(traceparent)) throw new errors.InvalidArgumentError('invalid traceparent header');
}

/** The index of the list's `host` header (a sign module's: it is the request's Host), or -1. */
export function hostIndex(headers: readonly string[]): number {
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') return i;
  }
  return -1;
}
