/**
 * An incremental, strict HTTP/1.1 response parser for rpcload's HTTP/1.1 client (http1-connection.ts).
 *
 * It takes the bytes of one connection in whatever pieces the socket delivers them and reports
 * each response to its sink: the head (status and raw header list), the body in pieces, the end.
 * The parse is the same however the bytes are split: each line is checked byte by byte as it
 * arrives (line-scanner.ts), a line cut between two reads is kept in a growing buffer until it is
 * complete, and a malformed line is refused at its first bad byte — also when the rest never comes.
 *
 * How strict, and why: as strict as undici's parser (llhttp) on hostile input, and failing with
 * undici's own error classes where undici fails, so that a response is classified the same
 * whichever client read it (src/api/outcome.ts keys on these errors' codes and names). Besides the
 * line grammar (line-scanner.ts):
 * - header names and values together may take `maxHeaderBytes` (undici's default, 16 KiB); a head
 *   larger than twice that in all is refused too (the status line and line ends count there);
 * - Content-Length: digits only (surrounding spaces allowed), at most 2^64 − 1, never twice, never
 *   beside Transfer-Encoding; trailers are parsed like headers;
 * - no body for 204, 304 and responses to HEAD; a body without a length (or with a transfer coding
 *   other than chunked last) lasts until the server closes;
 * - interim 1xx responses are skipped (RFC 9110 §15.2: a client must accept unsolicited ones),
 *   except 101, which switches protocols nobody asked for: an error, as in undici.
 * One quirk of undici's is kept on purpose: a parse error once a Content-Length value has been read
 * is reported as a Content-Length mismatch (UND_ERR_RES_CONTENT_LENGTH_MISMATCH), as undici does.
 */
import { errors } from 'undici';
import { LineKind, LineScanner } from './line-scanner.ts';

/** What the parser tells its owner. Returning false from a callback stops the parse at once (the owner tore the connection down). */
export interface ResponseSink {
  /**
   * A response starts. Returns what is expected of it: UNEXPECTED when no request is waiting for
   * one (the parse then fails: a response without a request), NO_BODY for a HEAD request's, BODY
   * otherwise.
   */
  onMessageBegin(): Expectation;
  /** The final (non-1xx) head. `headers` alternates names and values; it is only valid during the call and must not be changed. */
  onHead(statusCode: number, headers: string[], statusText: string): boolean;
  onBody(chunk: Buffer): boolean;
  /** The response ended; `keepAlive` false when the connection must not carry another request. */
  onMessageComplete(trailers: string[], keepAlive: boolean): boolean;
}

/** What a response starting now is expected to be (ResponseSink.onMessageBegin). */
export const Expectation = { UNEXPECTED: -1, BODY: 0, NO_BODY: 1 } as const;
export type Expectation = (typeof Expectation)[keyof typeof Expectation];

/** undici's default limit on header names and values together (Node's http.maxHeaderSize). */
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
/** A chunk-size line (with its extensions) longer than this is refused, as Node's server does. */
const MAX_CHUNK_LINE_BYTES = 16 * 1024;

/** Where the parser is. Line states read a line with the scanner; body states pass bytes through. */
const State = {
  STATUS_LINE: 0,
  HEADER_LINE: 1,
  BODY_LENGTH: 2,
  BODY_UNTIL_CLOSE: 3,
  CHUNK_SIZE_LINE: 4,
  CHUNK_DATA: 5,
  CHUNK_DATA_END: 6,
  TRAILER_LINE: 7,
  FAILED: 8,
} as const;
type State = (typeof State)[keyof typeof State];
// The states as module constants: V8 folds these into the parse loop, where reading them off the
// object cost ~5 % of a response's parse (measured).
const { STATUS_LINE, HEADER_LINE, BODY_LENGTH, BODY_UNTIL_CLOSE, CHUNK_SIZE_LINE } = State;
const { CHUNK_DATA, CHUNK_DATA_END, TRAILER_LINE, FAILED } = State;
/** The states that read a line (GRAMMAR gives the scanner's grammar for each). */
type LineState = typeof STATUS_LINE | typeof HEADER_LINE | typeof CHUNK_SIZE_LINE | typeof TRAILER_LINE;
// Indexed by state, a packed array read once per line; the body states hold a filler, never read.
const { STATUS, HEADER, CHUNK_SIZE } = LineKind;
const GRAMMAR: readonly LineKind[] = [STATUS, HEADER, 0, 0, CHUNK_SIZE, 0, 0, HEADER];

const CR = 13;
const LF = 10;
const EMPTY_TRAILERS: string[] = [];
/** 2^64 − 1, the largest length llhttp accepts, as digits. */
const MAX_LENGTH_DIGITS = '18446744073709551615';
/** Below 2^53 a length is exact as a number; above, it is compared with 2^64 − 1 as text. */
const MAX_SAFE_LENGTH = Number.MAX_SAFE_INTEGER;

/** Is a Content-Length (digits only) over 2^64 − 1? */
function tooLong(digits: string): boolean {
  const significant = digits.replace(/^0+(?=.)/, '');
  return (
    significant.length > MAX_LENGTH_DIGITS.length ||
    (significant.length === MAX_LENGTH_DIGITS.length && significant > MAX_LENGTH_DIGITS)
  );
}

/** Header names the parser itself acts on, matched by length then lower-cased bytes. */
const CONTENT_LENGTH = Buffer.from('content-length', 'latin1');
const TRANSFER_ENCODING = Buffer.from('transfer-encoding', 'latin1');
const CONNECTION = Buffer.from('connection', 'latin1');
const KEEP_ALIVE = Buffer.from('keep-alive', 'latin1');
const CLOSE = Buffer.from('close', 'latin1');

/**
 * Buffer's own latin1 and UTF-8 decoders, called directly: `toString(encoding, start, end)` checks
 * its arguments and looks the encoding up each time, which cost about as much as the decoding of
 * a header (measured: a third of the parse of a typical response).
 */
interface Decodable {
  latin1Slice(start: number, end: number): string;
  utf8Slice(start: number, end: number): string;
}
const latin1 = (buf: Buffer, start: number, end: number): string =>
  (buf as unknown as Decodable).latin1Slice(start, end);
const utf8 = (buf: Buffer, start: number, end: number): string => (buf as unknown as Decodable).utf8Slice(start, end);

/** Do the bytes from `start` to `end` spell `lower` (letters and `-`), case-insensitively? */
function nameIs(buf: Buffer, start: number, end: number, lower: Buffer): boolean {
  if (end - start !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) if ((buf[start + i]! | 0x20) !== lower[i]) return false;
  return true;
}

/** Comma-separated tokens of a header value, lower-cased and trimmed. */
const tokensOf = (value: string): string[] =>
  value
    .toLowerCase()
    .split(',')
    .map((token) => token.trim());

/** `keep-alive: timeout=N` in ms (undici's reading of the hint); null without a timeout. */
function keepAliveTimeoutOf(hint: string): number | null {
  const match = /timeout=(\d+)/.exec(hint);
  return match === null ? null : Number(match[1]) * 1000;
}

/**
 * A final response head as read before, and what it said. Servers repeat their heads byte for byte
 * (nginx's change only with its Date header, once a second), so an identical head is recognised
 * with one comparison and not parsed again — its header strings are not even rebuilt (measured:
 * the strings were most of a head's parse). Only bytes already parsed and accepted are remembered.
 */
interface HeadMemo {
  readonly bytes: Buffer;
  readonly statusCode: number;
  readonly http11: boolean;
  readonly statusText: string;
  readonly headers: string[];
  readonly contentLength: number;
  readonly transferEncoding: boolean;
  readonly chunked: boolean;
  readonly connectionClose: boolean;
  readonly connectionKeepAlive: boolean;
  readonly keepAliveHint: string;
}

/** What endLine returns when a sink callback stopped the parse (not an error of the response's). */
const STOPPED: unique symbol = Symbol('stopped');
type LineResult = Error | null | typeof STOPPED;

export class ResponseParser {
  private state: State = STATUS_LINE;
  private readonly line = new LineScanner();
  /** The start of the current line when it began in an earlier piece; null while it lies in the current one. */
  private lineBuf: Buffer | null = null;
  private lineBufLength = 0;
  /** Bytes of header names and values so far (undici's measure), and of the whole head. */
  private headerBytes = 0;
  private headBytes = 0;
  private error: Error | null = null;

  /** Has the current response's first byte been seen (and its end not yet)? */
  private inMessage = false;
  private expectation: Expectation = Expectation.BODY;
  private statusText = '';
  private readonly headers: string[] = [];
  private trailers: string[] = EMPTY_TRAILERS;
  private contentLength = -1;
  /**
   * The value of the Content-Length digits read so far, -1 before any (undici's quirk, see the
   * module comment: undici compares the body's bytes with parseInt of the text it read).
   */
  private contentLengthPrefix = -1;
  private transferEncoding = false;
  private chunked = false;
  private connectionClose = false;
  private connectionKeepAlive = false;
  private keepAliveHint = '';
  /** The current response's body bytes so far. */
  private bodyBytes = 0;
  /** Body bytes (or the current chunk's bytes) still to come. */
  private remaining = 0;
  private keepAlive = true;

  /** Where the current head began in the piece being parsed; -1 once it spans pieces (it is then not remembered). */
  private headStart = -1;
  /** The last final head that lay in one piece (see remember). */
  private memo: HeadMemo | null = null;

  /** The last response's `keep-alive: timeout=N` hint in ms; null when it gave none. */
  keepAliveTimeoutMs: number | null = null;

  constructor(
    private readonly sink: ResponseSink,
    private readonly maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES,
  ) {
    this.resetMessage();
  }

  /** Between responses, with nothing of the next one seen yet? */
  get idle(): boolean {
    return !this.inMessage;
  }

  /** Is a response's head complete and its body still coming (a body timeout applies, not a headers timeout)? */
  get inBody(): boolean {
    const s = this.state;
    return s >= BODY_LENGTH && s <= TRAILER_LINE;
  }

  /** Is a body under way after which the connection closes (a reset then ends it, as undici reads it)? */
  get closesConnection(): boolean {
    return this.inBody && !this.keepAlive;
  }

  /** Forget everything (the parser serves a new connection). */
  reset(): void {
    this.error = null;
    this.inMessage = false;
    this.keepAliveTimeoutMs = null;
    this.resetMessage();
  }

  /**
   * Parse the next piece of the connection's bytes. Returns the error that makes the rest of the
   * connection unreadable (undici's error classes), or null: every byte consumed, or a sink
   * callback stopped the parse.
   */
  execute(chunk: Buffer): Error | null {
    let pos = 0;
    const end = chunk.length;
    this.headStart = -1; // a head under way began in an earlier piece
    while (pos < end) {
      const state = this.state;
      if (state === BODY_LENGTH || state === CHUNK_DATA) {
        const take = Math.min(this.remaining, end - pos);
        const piece = take === end ? chunk : chunk.subarray(pos, pos + take);
        this.remaining -= take;
        this.bodyBytes += take;
        pos += take;
        if (!this.sink.onBody(piece)) return null;
        if (this.remaining > 0) continue;
        if (state === CHUNK_DATA) this.state = CHUNK_DATA_END;
        else if (!this.complete(EMPTY_TRAILERS)) return null;
      } else if (state === BODY_UNTIL_CLOSE) {
        this.bodyBytes += end - pos;
        if (!this.sink.onBody(pos === 0 ? chunk : chunk.subarray(pos))) return null;
        pos = end;
      } else if (state === CHUNK_DATA_END) {
        // The CRLF after a chunk's data (remaining is 0 before its CR, 1 after it).
        const byte = chunk[pos++]!;
        if (this.remaining === 0) {
          if (byte !== CR) return this.fail('Expected CR after chunk data', 'STRICT');
          this.remaining = 1;
        } else {
          if (byte !== LF) return this.fail('Expected LF after chunk data', 'STRICT');
          this.startLine(CHUNK_SIZE_LINE);
        }
      } else if (state === FAILED) {
        return null;
      } else {
        if (!this.inMessage) {
          this.inMessage = true;
          this.expectation = this.sink.onMessageBegin();
          if (this.expectation === Expectation.UNEXPECTED) return this.failWith(new errors.SocketError('bad response'));
          this.headStart = pos;
          const memo = this.memo;
          const length = memo === null ? 0 : memo.bytes.length;
          if (memo !== null && end - pos >= length && chunk.compare(memo.bytes, 0, length, pos, pos + length) === 0) {
            pos += length;
            const result = this.replay(memo);
            if (result !== null) return result === STOPPED ? null : result;
            continue;
          }
        }
        const next = this.scanLine(chunk, pos, end);
        if (next < 0) {
          if (this.state === FAILED) return this.error;
          this.keep(chunk, pos, end); // the line goes on in the next piece
          return null;
        }
        const result = this.endLine(chunk, pos, next);
        if (result !== null) return result === STOPPED ? null : result;
        pos = next;
      }
    }
    return null;
  }

  /**
   * The server closed the connection. A body that lasts until the close is complete now (the sink
   * hears of it) and null is returned; otherwise returns what the close cut short (undici's
   * errors), or null when no response was under way.
   */
  finish(): Error | null {
    if (this.state === FAILED) return this.error;
    if (this.state === BODY_UNTIL_CLOSE) {
      this.complete(EMPTY_TRAILERS);
      return null;
    }
    if (!this.inMessage) return null;
    // As undici: a response that said it would close (or is HTTP/1.0) and was cut short fails its
    // parse; a keep-alive one, or one whose head never completed, was closed under it.
    if (this.inBody && !this.keepAlive) return this.fail('Invalid EOF state', 'INVALID_EOF_STATE');
    return this.failWith(new errors.SocketError('other side closed'));
  }

  private failWith(error: Error): Error {
    this.state = FAILED;
    this.error = error;
    return error;
  }

  /** A parse error, as undici reports it (see the module comment for the Content-Length quirk). */
  private fail(reason: string, code: string): Error {
    if (this.contentLengthPrefix >= 0 && this.bodyBytes !== this.contentLengthPrefix)
      return this.failWith(new errors.ResponseContentLengthMismatchError());
    const error = new errors.HTTPParserError(`Response does not match the HTTP/1.1 protocol (${reason})`);
    (error as { code: string }).code = `HPE_${code}`;
    return this.failWith(error);
  }

  private resetMessage(): void {
    this.startLine(STATUS_LINE);
    this.headerBytes = 0;
    this.headBytes = 0;
    this.expectation = Expectation.BODY;
    this.statusText = '';
    this.headers.length = 0; // handed to the sink only during onHead: reused
    this.trailers = EMPTY_TRAILERS;
    this.contentLength = -1;
    this.contentLengthPrefix = -1;
    this.transferEncoding = false;
    this.chunked = false;
    this.connectionClose = false;
    this.connectionKeepAlive = false;
    this.keepAliveHint = '';
    this.bodyBytes = 0;
    this.remaining = 0;
    this.keepAlive = true;
  }

  private startLine(state: LineState): void {
    this.state = state;
    this.line.start(GRAMMAR[state]!);
    this.lineBuf = null;
    this.lineBufLength = 0;
  }

  /** Keep bytes of a line that started in an earlier piece or goes on in the next one. */
  private keep(chunk: Buffer, from: number, to: number): void {
    const needed = this.lineBufLength + to - from;
    if (this.lineBuf === null || this.lineBuf.length < needed) {
      const grown = Buffer.allocUnsafe(Math.max(256, needed * 2));
      if (this.lineBuf !== null) this.lineBuf.copy(grown, 0, 0, this.lineBufLength);
      this.lineBuf = grown;
    }
    chunk.copy(this.lineBuf, this.lineBufLength, from, to);
    this.lineBufLength = needed;
  }

  /** Scan the current line on from `pos`, within the size limits. Returns the index after its LF, or -1 (more to come, or state FAILED). */
  private scanLine(buf: Buffer, pos: number, end: number): number {
    const next = this.line.scan(buf, pos, end);
    const failure = this.line.failure;
    if (failure !== null) {
      this.fail(failure.reason, failure.code);
      return -1;
    }
    if (this.state === CHUNK_SIZE_LINE) {
      if (this.line.length > MAX_CHUNK_LINE_BYTES) {
        this.fail('Chunk extensions overflow', 'CHUNK_EXTENSIONS_OVERFLOW');
        return -1;
      }
      return next;
    }
    // Names and values are measured as undici does once each line is read; the head as a whole
    // (status line and line ends too) is bounded here, so an endless line cannot grow without end.
    this.headBytes += (next < 0 ? end : next) - pos;
    if (this.headBytes > 2 * this.maxHeaderBytes) {
      this.failWith(new errors.HeadersOverflowError());
      return -1;
    }
    return next;
  }

  /** A line is complete (it ends before `next` in `chunk`, and may have started in an earlier piece). */
  private endLine(chunk: Buffer, pos: number, next: number): LineResult {
    let src = chunk;
    let off = pos;
    if (this.lineBuf !== null) {
      this.keep(chunk, pos, next);
      src = this.lineBuf;
      off = 0;
    }
    const line = this.line;
    switch (this.state) {
      case STATUS_LINE:
        this.statusText = utf8(src, off + line.valueStart, off + line.valueEnd);
        this.startLine(HEADER_LINE);
        return null;
      case CHUNK_SIZE_LINE:
        this.remaining = line.chunkSize;
        if (this.remaining === 0) this.startLine(TRAILER_LINE);
        else this.state = CHUNK_DATA;
        return null;
      default:
        if (line.blank)
          return this.state === HEADER_LINE
            ? this.headComplete(chunk, next)
            : this.complete(this.trailers)
              ? null
              : STOPPED;
        return this.headerLine(src, off);
    }
  }

  /** A header or trailer line: recorded (the framing ones acted on), then refused if it ended in a bare LF. */
  private headerLine(src: Buffer, off: number): LineResult {
    const { colonAt, valueStart, valueEnd, bareLf } = this.line;
    this.headerBytes += colonAt + valueEnd - valueStart;
    if (this.headerBytes >= this.maxHeaderBytes) return this.failWith(new errors.HeadersOverflowError());
    const name = latin1(src, off, off + colonAt);
    const value = utf8(src, off + valueStart, off + valueEnd);
    if (this.state === TRAILER_LINE) {
      if (this.trailers === EMPTY_TRAILERS) this.trailers = [];
      this.trailers.push(name, value);
    } else {
      const error = this.framingHeader(src, off, off + colonAt, off + valueStart, off + valueEnd, value);
      if (error !== null) return error;
      this.headers.push(name, value);
    }
    if (bareLf) return this.fail('Missing expected CR after header value', 'CR_EXPECTED');
    this.startLine(this.state as LineState); // a header or trailer line
    return null;
  }

  /** Act on the headers that frame the body or the connection. */
  private framingHeader(
    src: Buffer,
    off: number,
    nameEnd: number,
    valueStart: number,
    valueEnd: number,
    value: string,
  ): Error | null {
    if (nameIs(src, off, nameEnd, CONTENT_LENGTH)) {
      if (this.transferEncoding)
        return this.fail("Content-Length can't be present with Transfer-Encoding", 'UNEXPECTED_CONTENT_LENGTH');
      if (this.contentLength >= 0) return this.fail('Duplicate Content-Length', 'UNEXPECTED_CONTENT_LENGTH');
      if (valueStart === valueEnd) return this.fail('Empty Content-Length', 'INVALID_CONTENT_LENGTH');
      let length = 0;
      let at = valueStart;
      for (; at < valueEnd; at++) {
        const digit = src[at]! - 48;
        if (digit < 0 || digit > 9) break;
        length = length * 10 + digit;
      }
      this.contentLengthPrefix = length;
      if (at < valueEnd) return this.fail('Invalid character in Content-Length', 'INVALID_CONTENT_LENGTH');
      if (length > MAX_SAFE_LENGTH && tooLong(latin1(src, valueStart, valueEnd)))
        return this.fail('Content-Length overflow', 'INVALID_CONTENT_LENGTH');
      this.contentLength = length;
    } else if (nameIs(src, off, nameEnd, TRANSFER_ENCODING)) {
      if (this.contentLength >= 0)
        return this.fail("Transfer-Encoding can't be present with Content-Length", 'UNEXPECTED_CONTENT_LENGTH');
      this.transferEncoding = true;
      this.chunked = tokensOf(value).at(-1) === 'chunked';
    } else if (nameIs(src, off, nameEnd, CONNECTION)) {
      // The usual values are matched on the bytes, without a lower-cased copy.
      if (nameIs(src, valueStart, valueEnd, KEEP_ALIVE)) this.connectionKeepAlive = true;
      else if (nameIs(src, valueStart, valueEnd, CLOSE)) this.connectionClose = true;
      else
        for (const token of tokensOf(value)) {
          if (token === 'close') this.connectionClose = true;
          else if (token === 'keep-alive') this.connectionKeepAlive = true;
        }
    } else if (nameIs(src, off, nameEnd, KEEP_ALIVE)) {
      this.keepAliveHint += value;
    }
    return null;
  }

  /** The blank line after the headers: decide how the body is framed, then tell the sink. */
  private headComplete(chunk: Buffer, next: number): LineResult {
    const { statusCode, httpMajor, httpMinor } = this.line;
    if (statusCode < 200) {
      if (statusCode === 101) return this.failWith(new errors.SocketError('bad upgrade'));
      // An interim response: the final one for the same request is still to come (from `next`).
      const expectation = this.expectation;
      this.resetMessage();
      this.expectation = expectation;
      this.headStart = next;
      return null;
    }
    const http11 = httpMajor > 0 && httpMinor > 0;
    if (this.headStart >= 0) this.memo = this.remember(chunk.subarray(this.headStart, next), statusCode, http11);
    return this.frameBody(statusCode, http11, this.headers);
  }

  /** Keep a final head that lay in one piece, and what it said, for the next identical one. */
  private remember(bytes: Buffer, statusCode: number, http11: boolean): HeadMemo {
    return {
      bytes: Buffer.from(bytes), // a copy: the socket's buffer is not ours to keep
      statusCode,
      http11,
      statusText: this.statusText,
      headers: [...this.headers],
      contentLength: this.contentLength,
      transferEncoding: this.transferEncoding,
      chunked: this.chunked,
      connectionClose: this.connectionClose,
      connectionKeepAlive: this.connectionKeepAlive,
      keepAliveHint: this.keepAliveHint,
    };
  }

  /** A head identical, byte for byte, to the remembered one: what it said, without parsing it again. */
  private replay(memo: HeadMemo): LineResult {
    this.statusText = memo.statusText;
    this.contentLength = memo.contentLength;
    this.contentLengthPrefix = memo.contentLength;
    this.transferEncoding = memo.transferEncoding;
    this.chunked = memo.chunked;
    this.connectionClose = memo.connectionClose;
    this.connectionKeepAlive = memo.connectionKeepAlive;
    this.keepAliveHint = memo.keepAliveHint;
    return this.frameBody(memo.statusCode, memo.http11, memo.headers);
  }

  /** The final head is read: decide how the body is framed, then tell the sink. */
  private frameBody(status: number, http11: boolean, headers: string[]): LineResult {
    // RFC 9112 §6.3 (and llhttp's keep-alive rule: HTTP/1.1 unless `close`, else only with `keep-alive`).
    let keepAlive = http11 ? !this.connectionClose : this.connectionKeepAlive;
    let next: typeof CHUNK_SIZE_LINE | typeof BODY_UNTIL_CLOSE | typeof BODY_LENGTH | -1;
    if (this.expectation === Expectation.NO_BODY || status === 204 || status === 304) next = -1;
    else if (this.transferEncoding) next = this.chunked ? CHUNK_SIZE_LINE : BODY_UNTIL_CLOSE;
    else if (this.contentLength >= 0) next = this.contentLength === 0 ? -1 : BODY_LENGTH;
    else next = BODY_UNTIL_CLOSE;
    if (next === BODY_UNTIL_CLOSE) keepAlive = false;
    this.keepAlive = keepAlive;
    this.keepAliveTimeoutMs = this.keepAliveHint === '' ? null : keepAliveTimeoutOf(this.keepAliveHint);
    // Trailers are measured against a fresh limit, as undici does.
    this.headerBytes = 0;
    this.headBytes = 0;
    if (!this.sink.onHead(status, headers, this.statusText)) return STOPPED;
    if (next === -1) return this.complete(EMPTY_TRAILERS) ? null : STOPPED;
    if (next === CHUNK_SIZE_LINE) this.startLine(CHUNK_SIZE_LINE);
    else {
      this.state = next;
      this.remaining = this.contentLength;
    }
    return null;
  }

  /** The response is complete: ready for the next one, then tell the sink. */
  private complete(trailers: string[]): boolean {
    const keepAlive = this.keepAlive;
    this.inMessage = false;
    this.resetMessage();
    return this.sink.onMessageComplete(trailers, keepAlive);
  }
}
