/**
 * Unsolicited interim responses, skipped before undici parses them. RFC 9110 §15.2: a client must
 * be able to parse one or more 1xx responses received before the final response, even if it did
 * not expect one. undici hands 102 and 103 to its handlers (which ignore them), but destroys the
 * connection on a `100 Continue` it did not ask for ("bad response", UND_ERR_SOCKET), and it has no
 * option to do otherwise: against such a server every call — and every token request — failed.
 *
 * So the connector undici is given wraps its socket's `read()` (the only way undici's HTTP/1.1
 * client takes bytes from a socket): at the start of each response, that is on the first bytes
 * read after a request was written, interim heads (`HTTP/1.x 1xx …` up to the blank line; they
 * never have a body) are dropped. A head cut between reads is held until it is complete. 101
 * Switching Protocols is not interim here: unasked-for, it stays undici's error. With pipelining,
 * only an interim head at the start of a read is seen; rpcload pipelines one request by default.
 * Cost on the hot path: one flag per write and one byte compared per response (~40 ns per request
 * in a micro-benchmark).
 */
import type { Socket } from 'node:net';
import { buildConnector } from 'undici';

/** `HTTP/1.0 1` or `HTTP/1.1 1`: the start of a 1xx status line. */
const INTERIM_PREFIX = /^HTTP\/1\.[01] 1(?!01)\d\d[ \r]/;
/** Where a status line's first status digit is ("HTTP/1.1 1…"), and that digit for 1xx. */
const STATUS_DIGIT_AT = 9;
const DIGIT_ONE = 0x31;
/** Enough bytes to tell a 1xx status line from any other start ("HTTP/1.1 100 "). */
const STATUS_LINE_PREFIX_BYTES = 13;
/** An interim head longer than this is not held any further: undici then sees it, and fails as it would. */
const MAX_INTERIM_HEAD_BYTES = 16 * 1024;
const HEAD_END = '\r\n\r\n';

/** Fewer bytes than a status line's start that could still turn out to be an interim one. */
function couldBeInterimStart(bytes: Buffer): boolean {
  const text = bytes.toString('latin1');
  return /^HTTP\/1\.[01] 1/.test(text) || 'HTTP/1.1 1'.startsWith(text) || 'HTTP/1.0 1'.startsWith(text);
}

/**
 * Make `socket` drop interim 1xx responses at the start of each response (see the module comment).
 * Returns the same socket.
 */
export function skipInterimResponses<S extends Socket>(socket: S): S {
  const read = socket.read.bind(socket) as (size?: number) => Buffer | string | null;
  const write = socket.write.bind(socket) as (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;
  /** A request was written and its response has not started yet: the next bytes begin a response. */
  let atResponseStart = false;
  /** The start of a possible interim head, read before it was complete. */
  let held: Buffer | null = null;

  // Three parameters, not a rest parameter: this runs once per request on the load's hot path.
  socket.write = (chunk: unknown, encoding?: unknown, callback?: unknown) => {
    atResponseStart = true;
    return write(chunk, encoding, callback);
  };

  socket.read = (size?: number) => {
    if (size === 0) return read(0);
    const chunk = read(size);
    if (!atResponseStart || chunk === null || typeof chunk === 'string') return chunk;
    let bytes = held === null ? chunk : Buffer.concat([held, chunk]);
    held = null;
    for (;;) {
      // The common case, decided by one byte: a status code not starting with 1 (or no HTTP at all).
      if (bytes.length > STATUS_DIGIT_AT && bytes[STATUS_DIGIT_AT] !== DIGIT_ONE) break;
      if (bytes.length < STATUS_LINE_PREFIX_BYTES && couldBeInterimStart(bytes)) {
        held = bytes;
        return null; // more bytes are on their way: undici reads again on the next 'readable'
      }
      if (!INTERIM_PREFIX.test(bytes.toString('latin1', 0, STATUS_LINE_PREFIX_BYTES))) break;
      const end = bytes.indexOf(HEAD_END, 0, 'latin1');
      if (end === -1) {
        if (bytes.length > MAX_INTERIM_HEAD_BYTES) break;
        held = bytes;
        return null;
      }
      bytes = bytes.subarray(end + HEAD_END.length);
      if (bytes.length === 0) return null;
    }
    atResponseStart = false;
    return bytes;
  };
  return socket;
}

/** undici's own connector (TLS trust, timeouts, keep-alive), with interim responses skipped on every socket it opens. */
export function interimTolerantConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const connect = buildConnector(options);
  return (connectOptions, callback) =>
    connect(connectOptions, (error, socket) => {
      if (error !== null) callback(error, null);
      // HTTP/2 frames its own interim responses (and its session reads the socket natively).
      else
        callback(
          null,
          (socket as { alpnProtocol?: string | false }).alpnProtocol === 'h2' ? socket : skipInterimResponses(socket),
        );
    });
}
