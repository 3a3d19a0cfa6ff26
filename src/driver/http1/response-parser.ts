/**
 * An incremental, strict HTTP/1.1 response parser for the fast client (http1-connection.ts).
 *
 * It takes the bytes of one connection in whatever pieces the socket delivers them and reports
 * each response to its sink: the head (status and raw header list), the body in pieces, the end.
 * The parse is the same however the bytes are split: a line cut between two reads is kept in a
 * growing buffer and every byte is checked once, as it arrives, so a malformed line is refused at
 * its first bad byte — also when the rest never comes.
 *
 * How strict, and why: as strict as undici's parser (llhttp) on hostile input, and failing with
 * undici's own error classes where undici fails, so that a response is classified the same
 * whichever client read it (src/api/outcome.ts keys on these errors' codes and names):
 * - the status line is `HTTP/<d>.<d> <3 digits>[ <reason>]` ending in CRLF (versions 0.9, 1.0,
 *   1.1 and 2.0, as llhttp accepts; status 100–999);
 * - header names are tokens followed at once by `:`; values are visible characters, spaces, tabs
 *   and bytes ≥ 0x80 (no other control character); obs-fold, bare LF and bare CR are refused;
 * - header names and values together may take `maxHeaderBytes` (undici's default, 16 KiB); a head
 *   larger than twice that in all is refused too (the status line and line ends count there);
 * - Content-Length: digits only (surrounding spaces allowed), at most 2^64 − 1, never twice, never
 *   beside Transfer-Encoding; chunked bodies with strict chunk-size lines (hex, extensions as
 *   tokens or quoted strings, nothing else) and trailers parsed like headers;
 * - no body for 204, 304 and responses to HEAD; a body without a length (or with a transfer coding
 *   other than chunked last) lasts until the server closes;
 * - interim 1xx responses are skipped (RFC 9110 §15.2: a client must accept unsolicited ones),
 *   except 101, which switches protocols nobody asked for: an error, as in undici.
 * One quirk of undici's is kept on purpose: a parse error once a Content-Length value has been read
 * is reported as a Content-Length mismatch (UND_ERR_RES_CONTENT_LENGTH_MISMATCH), as undici does.
 */
import { errors } from 'undici';

/** What the parser tells its owner. Returning false from a callback stops the parse at once (the owner tore the connection down). */
export interface ResponseSink {
  /**
   * A response starts. Returns what is expected of it: RESPONSE_UNEXPECTED when no request is
   * waiting for one (the parse then fails: a response without a request), RESPONSE_NO_BODY for a
   * HEAD request's, RESPONSE_EXPECTED otherwise.
   */
  onMessageBegin(): number;
  /** The final (non-1xx) head. `rawHeaders` alternates names and values and is only valid during the call. */
  onHeaders(statusCode: number, rawHeaders: string[], statusText: string): boolean;
  onBody(chunk: Buffer): boolean;
  /** The response ended; `keepAlive` false when the connection must not carry another request. */
  onMessageComplete(trailers: string[], keepAlive: boolean): boolean;
}

export const RESPONSE_UNEXPECTED = -1;
export const RESPONSE_EXPECTED = 0;
export const RESPONSE_NO_BODY = 1;

/** undici's default limit on header names and values together (Node's http.maxHeaderSize). */
export const DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
/** A chunk-size line (with its extensions) longer than this is refused, as Node's server does. */
const MAX_CHUNK_LINE_BYTES = 16 * 1024;

// Where the parser is. Line states read a line byte by byte; body states pass bytes through.
const STATUS_LINE = 0;
const HEADER_LINE = 1;
const BODY_LENGTH = 2;
const BODY_UNTIL_CLOSE = 3;
const CHUNK_SIZE_LINE = 4;
const CHUNK_DATA = 5;
const CHUNK_DATA_END = 6;
const TRAILER_LINE = 7;
const FAILED = 8;

// Within a header or trailer line.
const H_START = 0;
const H_NAME = 1;
const H_BEFORE_VALUE = 2;
const H_VALUE = 3;
const H_LF = 4;
const H_BLOCK_LF = 5;
// Within the status line: the fixed prefix `HTTP/d.d ddd` is checked by position.
const S_PREFIX = 0;
const S_AFTER_CODE = 1;
const S_REASON = 2;
const S_LF = 3;
// Within a chunk-size line.
const C_SIZE = 0;
const C_EXT_NAME_START = 1;
const C_EXT_NAME = 2;
const C_EXT_VALUE_START = 3;
const C_EXT_TOKEN_VALUE = 4;
const C_EXT_QUOTED = 5;
const C_EXT_QUOTED_ESCAPE = 6;
const C_AFTER_EXT = 7;
const C_LF = 8;

const CR = 13;
const LF = 10;
const SP = 32;
const HTAB = 9;
const COLON = 58;
const SEMICOLON = 59;
const EQUALS = 61;
const DQUOTE = 34;
const BACKSLASH = 92;

function table(accept: (byte: number) => boolean): Uint8Array {
  const t = new Uint8Array(256);
  for (let b = 0; b < 256; b++) t[b] = accept(b) ? 1 : 0;
  return t;
}
const isAlnum = (b: number): boolean => (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122);
/** RFC 9110 tchar. */
const TOKEN = table((b) => isAlnum(b) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(b)));
/** Header value bytes: HTAB, SP, VCHAR, obs-text. */
const VALUE = table((b) => b === HTAB || (b >= 0x20 && b <= 0x7e) || b >= 0x80);
/** Quoted-string text (qdtext): HTAB, SP, VCHAR but `"` and `\`, obs-text. */
const QDTEXT = table((b) => b !== DQUOTE && b !== BACKSLASH && (b === HTAB || (b >= 0x20 && b <= 0x7e) || b >= 0x80));
const HEX = new Int8Array(256).fill(-1);
for (let d = 0; d < 10; d++) HEX[48 + d] = d;
for (let d = 0; d < 6; d++) HEX[65 + d] = HEX[97 + d] = 10 + d;
const HTTP_SLASH = [72, 84, 84, 80, 47]; // "HTTP/"

const EMPTY_TRAILERS: string[] = [];
/** 2^64 − 1, the largest length llhttp accepts, as digits. */
const MAX_LENGTH_DIGITS = '18446744073709551615';

/** Header names the parser itself acts on, matched by length then lower-cased bytes. */
const CONTENT_LENGTH = Buffer.from('content-length', 'latin1');
const TRANSFER_ENCODING = Buffer.from('transfer-encoding', 'latin1');
const CONNECTION = Buffer.from('connection', 'latin1');
const KEEP_ALIVE = Buffer.from('keep-alive', 'latin1');

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

/** What endLine returns when a sink callback stopped the parse (not an error of the response's). */
const STOPPED: unique symbol = Symbol('stopped');
type LineResult = Error | null | typeof STOPPED;

export class ResponseParser {
  private state = STATUS_LINE;
  /** Position within the current line's grammar (S_*, H_*, C_*). */
  private phase = S_PREFIX;
  /** Bytes of the current line seen so far (offsets below are from the line's start). */
  private lineLength = 0;
  /** The start of the current line when it began in an earlier piece; null while it lies in the current one. */
  private lineBuf: Buffer | null = null;
  private lineBufLength = 0;
  private colonAt = 0;
  private valueStart = 0;
  private valueEnd = 0;
  /** Bytes of header names and values so far (undici's measure), and of the whole head. */
  private headerBytes = 0;
  private headBytes = 0;
  private error: Error | null = null;
  /** The header line just read ended in a bare LF (refused once read). */
  private bareLf = false;

  /** Has the current response's first byte been seen (and its end not yet)? */
  private inMessage = false;
  private expectation = RESPONSE_EXPECTED;
  private httpMajor = 0;
  private httpMinor = 0;
  private statusCode = 0;
  private statusText = '';
  private headers: string[] = [];
  private trailers: string[] = EMPTY_TRAILERS;
  private contentLength = -1;
  /** The Content-Length text read so far (undici's quirk: see the module comment). */
  private contentLengthText = '';
  private transferEncoding = false;
  private chunked = false;
  private connectionClose = false;
  private connectionKeepAlive = false;
  private keepAliveHint = '';
  /** The current response's body bytes so far. */
  private bodyBytes = 0;
  /** Body bytes (or the current chunk's bytes) still to come. */
  private remaining = 0;
  /** Significant hex digits of the chunk size being read. */
  private chunkDigits = 0;
  private keepAlive = true;

  /** The last response's `keep-alive: timeout=N` hint in ms; null when it gave none. */
  keepAliveTimeoutMs: number | null = null;

  constructor(
    private readonly sink: ResponseSink,
    private readonly maxHeaderBytes = DEFAULT_MAX_HEADER_BYTES,
  ) {}

  /** Between responses, with nothing of the next one seen yet? */
  get idle(): boolean {
    return !this.inMessage;
  }

  /** Is a response's head complete and its body still coming (a body timeout applies, not a headers timeout)? */
  get inBody(): boolean {
    const s = this.state;
    return (
      s === BODY_LENGTH || s === BODY_UNTIL_CLOSE || s === CHUNK_SIZE_LINE || s === CHUNK_DATA || s === CHUNK_DATA_END || s === TRAILER_LINE
    );
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
        if (state === CHUNK_DATA) {
          this.state = CHUNK_DATA_END;
          this.phase = 0;
        } else if (!this.complete(EMPTY_TRAILERS)) return null;
      } else if (state === BODY_UNTIL_CLOSE) {
        this.bodyBytes += end - pos;
        if (!this.sink.onBody(pos === 0 ? chunk : chunk.subarray(pos))) return null;
        pos = end;
      } else if (state === CHUNK_DATA_END) {
        const byte = chunk[pos++]!;
        if (this.phase === 0) {
          if (byte !== CR) return this.fail('Expected CR after chunk data', 'STRICT');
          this.phase = 1;
        } else {
          if (byte !== LF) return this.fail('Expected LF after chunk data', 'STRICT');
          this.startLine(CHUNK_SIZE_LINE, C_SIZE);
        }
      } else if (state === FAILED) {
        return null;
      } else {
        if (!this.inMessage) {
          this.inMessage = true;
          this.expectation = this.sink.onMessageBegin();
          if (this.expectation === RESPONSE_UNEXPECTED) return this.failWith(new errors.SocketError('bad response'));
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
    if (this.contentLengthText !== '' && this.bodyBytes !== parseInt(this.contentLengthText, 10))
      return this.failWith(new errors.ResponseContentLengthMismatchError());
    const error = new errors.HTTPParserError(`Response does not match the HTTP/1.1 protocol (${reason})`);
    (error as { code: string }).code = `HPE_${code}`;
    return this.failWith(error);
  }

  /** fail() for the scanners: they return -1 with the state FAILED. */
  private refuse(reason: string, code: string): number {
    this.fail(reason, code);
    return -1;
  }

  private resetMessage(): void {
    this.startLine(STATUS_LINE, S_PREFIX);
    this.headerBytes = 0;
    this.headBytes = 0;
    this.expectation = RESPONSE_EXPECTED;
    this.httpMajor = 0;
    this.httpMinor = 0;
    this.statusCode = 0;
    this.statusText = '';
    this.headers.length = 0; // handed to the sink only during onHeaders: reused
    this.trailers = EMPTY_TRAILERS;
    this.contentLength = -1;
    this.contentLengthText = '';
    this.transferEncoding = false;
    this.chunked = false;
    this.connectionClose = false;
    this.connectionKeepAlive = false;
    this.keepAliveHint = '';
    this.bodyBytes = 0;
    this.remaining = 0;
    this.chunkDigits = 0;
    this.keepAlive = true;
  }

  private startLine(state: number, phase: number): void {
    this.state = state;
    this.phase = phase;
    this.lineLength = 0;
    this.lineBuf = null;
    this.lineBufLength = 0;
    this.bareLf = false;
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

  /**
   * Check the line's bytes from `pos` on, carrying on from where the last piece left it. Returns
   * the index after its LF, or -1 when the piece ends first or a byte was refused (state FAILED).
   */
  private scanLine(buf: Buffer, pos: number, end: number): number {
    const state = this.state;
    const next =
      state === STATUS_LINE
        ? this.scanStatusLine(buf, pos, end)
        : state === CHUNK_SIZE_LINE
          ? this.scanChunkSizeLine(buf, pos, end)
          : this.scanHeaderLine(buf, pos, end);
    if (state === CHUNK_SIZE_LINE) {
      if (this.lineLength > MAX_CHUNK_LINE_BYTES && this.state !== FAILED)
        return this.refuse('Chunk extensions overflow', 'CHUNK_EXTENSIONS_OVERFLOW');
      return next;
    }
    this.headBytes += (next < 0 ? end : next) - pos;
    if (this.headBytes > 2 * this.maxHeaderBytes && this.state !== FAILED) {
      this.failWith(new errors.HeadersOverflowError());
      return -1;
    }
    return next;
  }

  /** `HTTP/d.d ddd[ reason]` CRLF; the fixed prefix is checked by position. */
  private scanStatusLine(buf: Buffer, pos: number, end: number): number {
    const base = this.lineLength - pos;
    let phase = this.phase;
    for (; pos < end; pos++) {
      const byte = buf[pos]!;
      const at = base + pos;
      if (phase === S_PREFIX) {
        if (at < 5) {
          if (byte !== HTTP_SLASH[at]) return this.refuse('Expected HTTP/', 'INVALID_CONSTANT');
        } else if (at === 5 || at === 7) {
          if (byte < 48 || byte > 57) return this.refuse('Invalid HTTP version', 'INVALID_VERSION');
          if (at === 5) this.httpMajor = byte - 48;
          else this.httpMinor = byte - 48;
        } else if (at === 6) {
          if (byte !== 46) return this.refuse('Invalid HTTP version', 'INVALID_VERSION');
        } else if (at === 8) {
          const version = this.httpMajor * 10 + this.httpMinor;
          if (version !== 9 && version !== 10 && version !== 11 && version !== 20)
            return this.refuse('Invalid HTTP version', 'INVALID_VERSION');
          if (byte !== SP) return this.refuse('Expected space after HTTP version', 'INVALID_VERSION');
        } else {
          if (byte < 48 || byte > 57) return this.refuse('Invalid status code', 'INVALID_STATUS');
          this.statusCode = this.statusCode * 10 + byte - 48;
          if (at === 11) {
            if (this.statusCode < 100) return this.refuse('Invalid status code', 'INVALID_STATUS');
            phase = S_AFTER_CODE;
          }
        }
      } else if (phase === S_AFTER_CODE) {
        if (byte === SP) {
          this.valueStart = at + 1;
          phase = S_REASON;
        } else if (byte === CR) {
          this.valueStart = this.valueEnd = at;
          phase = S_LF;
        } else return this.refuse('Invalid response status', 'INVALID_STATUS');
      } else if (phase === S_REASON) {
        // Any byte but CR and LF, as llhttp allows.
        if (byte === CR) {
          this.valueEnd = at;
          phase = S_LF;
        } else if (byte === LF) return this.refuse('Missing expected CR after response line', 'CR_EXPECTED');
      } else {
        if (byte !== LF) return this.refuse('Missing expected LF after response line', 'LF_EXPECTED');
        this.phase = phase;
        this.lineLength = at + 1;
        return pos + 1;
      }
    }
    this.phase = phase;
    this.lineLength = base + end;
    return -1;
  }

  /** A header or trailer line (`name: value` CRLF), or the blank line that ends the block. */
  private scanHeaderLine(buf: Buffer, pos: number, end: number): number {
    const base = this.lineLength - pos;
    let phase = this.phase;
    while (pos < end) {
      if (phase === H_START) {
        const byte = buf[pos]!;
        if (byte === CR) phase = H_BLOCK_LF;
        else if (TOKEN[byte] === 1) phase = H_NAME;
        else if (byte === SP || byte === HTAB) return this.refuse('Unexpected whitespace after header value', 'UNEXPECTED_SPACE');
        else return this.refuse('Invalid header token', 'INVALID_HEADER_TOKEN');
        pos++;
      } else if (phase === H_NAME) {
        while (pos < end && TOKEN[buf[pos]!] === 1) pos++;
        if (pos === end) break;
        if (buf[pos] !== COLON) return this.refuse('Invalid header token', 'INVALID_HEADER_TOKEN');
        this.colonAt = base + pos;
        phase = H_BEFORE_VALUE;
        pos++;
      } else if (phase === H_BEFORE_VALUE) {
        const byte = buf[pos]!;
        if (byte === SP || byte === HTAB) {
          pos++;
          continue;
        }
        this.valueStart = this.valueEnd = base + pos;
        if (VALUE[byte] === 1)
          phase = H_VALUE; // that byte is read as the value's first
        else if (byte === CR) {
          phase = H_LF;
          pos++;
        } else if (byte === LF) return this.bareLineEnd(base, pos);
        else return this.refuse('Invalid header value char', 'INVALID_HEADER_TOKEN');
      } else if (phase === H_VALUE) {
        let valueEnd = this.valueEnd;
        for (; pos < end; pos++) {
          const byte = buf[pos]!;
          if (VALUE[byte] !== 1) break;
          if (byte !== SP && byte !== HTAB) valueEnd = base + pos + 1;
        }
        this.valueEnd = valueEnd;
        if (pos === end) break;
        if (buf[pos] === LF) return this.bareLineEnd(base, pos);
        if (buf[pos] !== CR) return this.refuse('Invalid header value char', 'INVALID_HEADER_TOKEN');
        phase = H_LF;
        pos++;
      } else {
        // H_LF or H_BLOCK_LF
        if (buf[pos] !== LF) return this.refuse('Missing expected LF after header value', 'LF_EXPECTED');
        this.phase = phase;
        this.lineLength = base + pos + 1;
        return pos + 1;
      }
    }
    this.phase = phase;
    this.lineLength = base + end;
    return -1;
  }

  /**
   * A header line ended by LF without CR: refused, but only once the line has been read, as llhttp
   * reads it (so a Content-Length value before it counts for undici's quirk).
   */
  private bareLineEnd(base: number, pos: number): number {
    this.bareLf = true;
    this.lineLength = base + pos + 1;
    return pos + 1;
  }

  /** `1*HEXDIG *( ";" token [ "=" ( token / quoted-string ) ] )` CRLF, accumulating the size. */
  private scanChunkSizeLine(buf: Buffer, pos: number, end: number): number {
    const base = this.lineLength - pos;
    let phase = this.phase;
    for (; pos < end; pos++) {
      const byte = buf[pos]!;
      switch (phase) {
        case C_SIZE: {
          const digit = HEX[byte]!;
          if (digit >= 0) {
            if (this.chunkDigits > 0 || digit > 0) this.chunkDigits++;
            if (this.chunkDigits > 16) return this.refuse('Chunk size overflow', 'INVALID_CHUNK_SIZE');
            this.remaining = this.remaining * 16 + digit;
            continue;
          }
          if (base + pos === 0) return this.refuse('Invalid character in chunk size', 'INVALID_CHUNK_SIZE');
          if (byte === SEMICOLON) phase = C_EXT_NAME_START;
          else if (byte === CR) phase = C_LF;
          else return this.refuse('Invalid character in chunk size', 'INVALID_CHUNK_SIZE');
          continue;
        }
        case C_EXT_NAME_START:
          if (TOKEN[byte] !== 1) return this.refuse('Invalid character in chunk extensions', 'STRICT');
          phase = C_EXT_NAME;
          continue;
        case C_EXT_NAME:
        case C_EXT_TOKEN_VALUE:
          if (TOKEN[byte] === 1) continue;
          if (byte === EQUALS && phase === C_EXT_NAME) phase = C_EXT_VALUE_START;
          else if (byte === SEMICOLON) phase = C_EXT_NAME_START;
          else if (byte === CR) phase = C_LF;
          else return this.refuse('Invalid character in chunk extensions', 'STRICT');
          continue;
        case C_EXT_VALUE_START:
          if (byte === DQUOTE) phase = C_EXT_QUOTED;
          else if (TOKEN[byte] === 1) phase = C_EXT_TOKEN_VALUE;
          else return this.refuse('Invalid character in chunk extensions value', 'STRICT');
          continue;
        case C_EXT_QUOTED:
          if (QDTEXT[byte] === 1) continue;
          if (byte === BACKSLASH) phase = C_EXT_QUOTED_ESCAPE;
          else if (byte === DQUOTE) phase = C_AFTER_EXT;
          else return this.refuse('Invalid character in chunk extensions quoted value', 'STRICT');
          continue;
        case C_EXT_QUOTED_ESCAPE:
          if (VALUE[byte] !== 1) return this.refuse('Invalid quoted-pair in chunk extensions quoted value', 'STRICT');
          phase = C_EXT_QUOTED;
          continue;
        case C_AFTER_EXT:
          if (byte === SEMICOLON) phase = C_EXT_NAME_START;
          else if (byte === CR) phase = C_LF;
          else return this.refuse('Invalid character in chunk extensions', 'STRICT');
          continue;
        default:
          if (byte !== LF) return this.refuse('Missing expected LF after chunk size', 'LF_EXPECTED');
          this.phase = phase;
          this.lineLength = base + pos + 1;
          return pos + 1;
      }
    }
    this.phase = phase;
    this.lineLength = base + end;
    return -1;
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
    switch (this.state) {
      case STATUS_LINE:
        this.statusText = src.toString('utf8', off + this.valueStart, off + this.valueEnd);
        this.startLine(HEADER_LINE, H_START);
        return null;
      case CHUNK_SIZE_LINE:
        if (this.remaining === 0) this.startLine(TRAILER_LINE, H_START);
        else {
          this.state = CHUNK_DATA;
          this.chunkDigits = 0;
        }
        return null;
      default:
        if (this.phase === H_BLOCK_LF)
          return this.state === HEADER_LINE ? this.headComplete() : this.complete(this.trailers) ? null : STOPPED;
        return this.headerLine(src, off);
    }
  }

  private headerLine(src: Buffer, off: number): LineResult {
    const bareLf = this.bareLf;
    const result = this.readHeaderLine(src, off);
    if (!bareLf || result !== null) return result;
    return this.fail('Missing expected CR after header value', 'CR_EXPECTED');
  }

  private readHeaderLine(src: Buffer, off: number): LineResult {
    const nameEnd = off + this.colonAt;
    const valueStart = off + this.valueStart;
    const valueEnd = off + this.valueEnd;
    this.headerBytes += this.colonAt + valueEnd - valueStart;
    if (this.headerBytes >= this.maxHeaderBytes) return this.failWith(new errors.HeadersOverflowError());
    const name = src.toString('latin1', off, nameEnd);
    const value = src.toString('utf8', valueStart, valueEnd);
    if (this.state === TRAILER_LINE) {
      if (this.trailers === EMPTY_TRAILERS) this.trailers = [];
      this.trailers.push(name, value);
    } else {
      const error = this.specialHeader(src, off, nameEnd, valueStart, valueEnd, value);
      if (error !== null) return error;
      this.headers.push(name, value);
    }
    this.startLine(this.state, H_START);
    return null;
  }

  /** Act on the headers that frame the body or the connection. */
  private specialHeader(src: Buffer, off: number, nameEnd: number, valueStart: number, valueEnd: number, value: string): Error | null {
    if (nameIs(src, off, nameEnd, CONTENT_LENGTH)) {
      if (this.transferEncoding) return this.fail("Content-Length can't be present with Transfer-Encoding", 'UNEXPECTED_CONTENT_LENGTH');
      if (this.contentLength >= 0) return this.fail('Duplicate Content-Length', 'UNEXPECTED_CONTENT_LENGTH');
      let digits = valueStart;
      while (digits < valueEnd && src[digits]! >= 48 && src[digits]! <= 57) digits++;
      this.contentLengthText = src.toString('latin1', valueStart, digits);
      if (valueStart === valueEnd) return this.fail('Empty Content-Length', 'INVALID_CONTENT_LENGTH');
      if (digits < valueEnd) return this.fail('Invalid character in Content-Length', 'INVALID_CONTENT_LENGTH');
      const significant = this.contentLengthText.replace(/^0+(?=.)/, '');
      if (
        significant.length > MAX_LENGTH_DIGITS.length ||
        (significant.length === MAX_LENGTH_DIGITS.length && significant > MAX_LENGTH_DIGITS)
      )
        return this.fail('Content-Length overflow', 'INVALID_CONTENT_LENGTH');
      this.contentLength = Number(significant);
    } else if (nameIs(src, off, nameEnd, TRANSFER_ENCODING)) {
      if (this.contentLength >= 0) return this.fail("Transfer-Encoding can't be present with Content-Length", 'UNEXPECTED_CONTENT_LENGTH');
      this.transferEncoding = true;
      this.chunked = tokensOf(value).at(-1) === 'chunked';
    } else if (nameIs(src, off, nameEnd, CONNECTION)) {
      const lower = value.toLowerCase();
      if (lower === 'keep-alive')
        this.connectionKeepAlive = true; // the usual case: no split
      else if (lower === 'close') this.connectionClose = true;
      else
        for (const token of tokensOf(lower)) {
          if (token === 'close') this.connectionClose = true;
          else if (token === 'keep-alive') this.connectionKeepAlive = true;
        }
    } else if (nameIs(src, off, nameEnd, KEEP_ALIVE)) {
      this.keepAliveHint += value;
    }
    return null;
  }

  /** The blank line after the headers: decide how the body is framed, then tell the sink. */
  private headComplete(): LineResult {
    const status = this.statusCode;
    if (status < 200) {
      if (status === 101) return this.failWith(new errors.SocketError('bad upgrade'));
      // An interim response: the final one for the same request is still to come.
      const expectation = this.expectation;
      this.resetMessage();
      this.expectation = expectation;
      return null;
    }
    // RFC 9112 §6.3 (and llhttp's keep-alive rule: HTTP/1.1 unless `close`, else only with `keep-alive`).
    let keepAlive = this.httpMajor > 0 && this.httpMinor > 0 ? !this.connectionClose : this.connectionKeepAlive;
    let next: number;
    if (this.expectation === RESPONSE_NO_BODY || status === 204 || status === 304) next = -1;
    else if (this.transferEncoding) next = this.chunked ? CHUNK_SIZE_LINE : BODY_UNTIL_CLOSE;
    else if (this.contentLength >= 0) next = this.contentLength === 0 ? -1 : BODY_LENGTH;
    else next = BODY_UNTIL_CLOSE;
    if (next === BODY_UNTIL_CLOSE) keepAlive = false;
    this.keepAlive = keepAlive;
    this.keepAliveTimeoutMs = this.keepAliveHint === '' ? null : keepAliveTimeoutOf(this.keepAliveHint);
    // Trailers are measured against a fresh limit, as undici does.
    this.headerBytes = 0;
    this.headBytes = 0;
    if (!this.sink.onHeaders(status, this.headers, this.statusText)) return STOPPED;
    if (next === -1) return this.complete(EMPTY_TRAILERS) ? null : STOPPED;
    if (next === CHUNK_SIZE_LINE) this.startLine(CHUNK_SIZE_LINE, C_SIZE);
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

/** `keep-alive: timeout=N` in ms (undici's reading of the hint); null without a timeout. */
function keepAliveTimeoutOf(hint: string): number | null {
  const match = /timeout=(\d+)/.exec(hint);
  return match === null ? null : Number(match[1]) * 1000;
}
