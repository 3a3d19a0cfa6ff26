/**
 * Request bytes for rpcload's HTTP/1.1 client, encoded once and reused.
 *
 * A load run sends the same few requests over and over: one path per step, one header list per
 * client token (the same array object until the token changes), one body per static step. So the
 * head — `POST /api/ping HTTP/1.1`, host, keep-alive, the client's headers, the Content-Length — is
 * encoded and validated once per (header list, method, path, body length) and kept; a request whose
 * body is the same Buffer as last time reuses the whole request, head and body, as one Buffer
 * (one write, no copy). A templated body (a new Buffer each time) is copied behind the kept head
 * into one buffer from Node's pool, so it still goes out in one write. A body Buffer is taken to be
 * immutable once handed over (the engine's are: static bodies are rendered once, others anew). A
 * request's own traceparent comes apart from the list (RequestHead.traceparent) and is written into
 * that one buffer after the kept header lines, so the list, and its encoding, stay the same; on a
 * connection, into the buffer its last request went out in (TracedRequestBuffer).
 *
 * The bytes are those undici writes for the same request (same header order and spelling), and
 * what undici refuses is refused with undici's error: the rules are request-head.ts's, shared with
 * the HTTP/2 sessions and the undici adapter.
 */
import { checkRequestHead, checkTraceparent, expectsPayload, hostIndex, type RequestHead } from '../request-head.ts';

interface Encoded {
  readonly host: string;
  readonly method: string;
  readonly path: string;
  readonly bodyLength: number;
  readonly head: Buffer;
  /** Length of the head's header lines, before Content-Length and the blank line: where a traceparent goes in. */
  readonly headLines: number;
  /** The body last sent with this head, and head + body as one Buffer. */
  body: Buffer | null;
  whole: Buffer | null;
}

/** Encodings kept per header list (steps × body lengths of one client's token); the oldest go first. */
const MAX_ENCODINGS_PER_HEADERS = 32;
/** Header lists are kept by identity: a client's list lives as long as its token, and goes with it. */
const byHeaders = new WeakMap<object, Encoded[]>();

/**
 * The head, and the length of its part before Content-Length and the blank line. A `host` in the
 * list is the Host (written where the connection's would be, as undici writes it), never a second one.
 */
function encodeHead(
  host: string,
  method: string,
  path: string,
  headers: readonly string[],
  bodyLength: number,
): [Buffer, number] {
  checkRequestHead(path, headers);
  const listed = hostIndex(headers);
  const hostValue = listed < 0 ? host : headers[listed + 1]!;
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${hostValue}\r\nconnection: keep-alive\r\n`;
  for (let i = 0; i + 1 < headers.length; i += 2) if (i !== listed) head += `${headers[i]!}: ${headers[i + 1]!}\r\n`;
  const headLines = head.length; // latin1: one byte a character
  if (bodyLength > 0 || expectsPayload(method)) head += `content-length: ${bodyLength}\r\n`;
  return [Buffer.from(`${head}\r\n`, 'latin1'), headLines];
}

const TRACEPARENT_LINE = Buffer.from('traceparent: ', 'latin1');

/**
 * One connection's buffer for requests with a traceparent: the kept head with a `traceparent` line
 * inserted after its headers, and the body. A request differs from the last one on the connection
 * only by its traceparent as long as its head (client token, path) and body are the same: then only
 * those 55 bytes are written anew, into the buffer the last request went out in — no allocation,
 * no copy of the head and body per request (they were 5–6 % of the load thread in the closed
 * model). The connection must `release()` the buffer whenever a write may still hold it (not
 * written out at once, or corked): the next request then gets a buffer of its own.
 */
export class TracedRequestBuffer {
  private bytes: Buffer | null = null;
  private entry: Encoded | null = null;
  private body: Buffer | null = null;

  /** `request`'s bytes with `traceparent` written in: this buffer's, valid until the next call or release(). */
  fill(entry: Encoded, traceparent: string, body: Buffer): Buffer {
    const length = entry.head.length + TRACEPARENT_LINE.length + traceparent.length + 2 + body.length;
    let out = this.bytes;
    // The traceparent's value starts right after the head's header lines and `traceparent: `.
    const valueAt = entry.headLines + TRACEPARENT_LINE.length;
    if (out !== null && this.entry === entry && this.body === body && out.length === length) {
      out.write(traceparent, valueAt, 'latin1');
      return out;
    }
    if (out === null || out.length !== length) out = Buffer.allocUnsafe(length);
    entry.head.copy(out, 0, 0, entry.headLines);
    TRACEPARENT_LINE.copy(out, entry.headLines);
    let at = valueAt + out.write(traceparent, valueAt, 'latin1');
    out[at++] = 13;
    out[at++] = 10;
    at += entry.head.copy(out, at, entry.headLines);
    body.copy(out, at);
    this.bytes = out;
    this.entry = entry;
    this.body = body;
    return out;
  }

  /** The last bytes may still be read by a write under way: they are no longer this buffer's to change. */
  release(): void {
    this.bytes = null;
    this.entry = null;
    this.body = null;
  }
}

/**
 * The request's bytes for a connection to `host` (the Host header's value, unless the list names
 * one), ready to write; with a traceparent, in the connection's `traced` buffer (see TracedRequestBuffer).
 * Throws undici's InvalidArgumentError for a path or header undici would refuse.
 */
export function encodeRequest(host: string, request: RequestHead, traced: TracedRequestBuffer): Buffer {
  const { method, path, headers, body } = request;
  const bodyLength = body.length;
  let list = byHeaders.get(headers);
  let entry: Encoded | undefined;
  if (list !== undefined) {
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      if (e.path === path && e.bodyLength === bodyLength && e.method === method && e.host === host) {
        entry = e;
        break;
      }
    }
  }
  if (entry === undefined) {
    const [head, headLines] = encodeHead(host, method, path, headers, bodyLength);
    entry = { host, method, path, bodyLength, head, headLines, body: null, whole: null };
    if (list === undefined) byHeaders.set(headers, (list = []));
    if (list.length >= MAX_ENCODINGS_PER_HEADERS) list.shift();
    list.push(entry);
  }
  const traceparent = request.traceparent;
  if (traceparent !== null) {
    checkTraceparent(traceparent);
    return traced.fill(entry, traceparent, body);
  }
  if (bodyLength === 0) return entry.head;
  if (entry.body !== body) {
    entry.body = body;
    entry.whole = Buffer.concat([entry.head, body], entry.head.length + bodyLength);
  }
  return entry.whole!;
}
