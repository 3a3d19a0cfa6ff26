/**
 * The lines of an HTTP/1.1 response, checked byte by byte as they arrive: the status line, header
 * and trailer lines, and chunk-size lines. A scan can stop anywhere (the socket's piece ended) and
 * carry on with the next piece from where it stopped, so each byte is checked exactly once however
 * the bytes are split, and a bad line is refused at its first bad byte — also when the rest of it
 * never comes. The scanner records where the parts of the line lie (offsets from the line's start);
 * the parser (response-parser.ts) reads them once the line is complete.
 *
 * The grammar is llhttp's as undici uses it (RFC 9112, strict): `HTTP/<d>.<d> <3 digits>[ reason]`
 * with versions 0.9, 1.0, 1.1 and 2.0 and any reason bytes but CR and LF; header names are tokens
 * followed at once by `:`; values are visible characters, spaces, tabs and bytes ≥ 0x80, between
 * optional spaces; obs-fold, bare CR and bare LF are refused; chunk sizes are hex digits with
 * extensions (`;name[=token|"quoted"]`) and nothing else, not even a space.
 */

/** What a line is: the scanner's grammar for it. */
export const LineKind = { STATUS: 0, HEADER: 1, CHUNK_SIZE: 2 } as const;
export type LineKind = (typeof LineKind)[keyof typeof LineKind];

/** Phases of a header or trailer line; BLOCK_LF: after the CR of the blank line that ends the block. */
const HeaderPhase = { START: 0, NAME: 1, BEFORE_VALUE: 2, VALUE: 3, LF: 4, BLOCK_LF: 5 } as const;
type HeaderPhase = (typeof HeaderPhase)[keyof typeof HeaderPhase];
/** Phases of the status line: the fixed prefix `HTTP/d.d ddd` is checked by position. */
const StatusPhase = { PREFIX: 0, AFTER_CODE: 1, REASON: 2, LF: 3 } as const;
type StatusPhase = (typeof StatusPhase)[keyof typeof StatusPhase];
/** Phases of a chunk-size line. */
const ChunkPhase = {
  SIZE: 0,
  EXT_NAME_START: 1,
  EXT_NAME: 2,
  EXT_VALUE_START: 3,
  EXT_TOKEN_VALUE: 4,
  EXT_QUOTED: 5,
  EXT_QUOTED_ESCAPE: 6,
  AFTER_EXT: 7,
  LF: 8,
} as const;
type ChunkPhase = (typeof ChunkPhase)[keyof typeof ChunkPhase];

// The phases as module constants for the per-byte loops, one prefix per kind of line: V8 folds
// these into the loops, where reading them off the objects cost ~5 % of a parse (measured).
const { START: H_START, NAME: H_NAME, BEFORE_VALUE: H_BEFORE_VALUE, VALUE: H_VALUE } = HeaderPhase;
const { LF: H_LF, BLOCK_LF: H_BLOCK_LF } = HeaderPhase;
const { PREFIX: S_PREFIX, AFTER_CODE: S_AFTER_CODE, REASON: S_REASON, LF: S_LF } = StatusPhase;
const {
  SIZE: C_SIZE,
  EXT_NAME_START: C_EXT_NAME_START,
  EXT_NAME: C_EXT_NAME,
  EXT_VALUE_START: C_EXT_VALUE_START,
  EXT_TOKEN_VALUE: C_EXT_TOKEN_VALUE,
  EXT_QUOTED: C_EXT_QUOTED,
  EXT_QUOTED_ESCAPE: C_EXT_QUOTED_ESCAPE,
  AFTER_EXT: C_AFTER_EXT,
  LF: C_LF,
} = ChunkPhase;

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
/** A chunk size has at most this many significant hex digits (2^64 − 1, llhttp's limit). */
const MAX_CHUNK_DIGITS = 16;

/** Why a line was refused: llhttp's reason and error code (without its HPE_ prefix). */
export interface LineFailure {
  readonly reason: string;
  readonly code: string;
}

export class LineScanner {
  kind: LineKind = LineKind.STATUS;
  /** Bytes of the line seen so far; the offsets below count from the line's start. */
  length = 0;
  /** Where the header name ends; where the (trimmed) value or the reason phrase lies. */
  colonAt = 0;
  valueStart = 0;
  valueEnd = 0;
  /** The line was a blank one: the end of a header block. */
  blank = false;
  /** The header line ended in a bare LF: refused, but only once read, as llhttp reads it. */
  bareLf = false;
  httpMajor = 0;
  httpMinor = 0;
  statusCode = 0;
  /** The chunk size read so far. */
  chunkSize = 0;
  /** Set when a byte was refused. */
  failure: LineFailure | null = null;
  /** The phase of the line under way (one of its kind's). */
  private phase: HeaderPhase | StatusPhase | ChunkPhase = 0;
  private chunkDigits = 0;

  /** Start a line of `kind`. */
  start(kind: LineKind): void {
    this.kind = kind;
    this.phase = 0;
    this.length = 0;
    this.blank = false;
    this.bareLf = false;
    this.failure = null;
    if (kind === LineKind.STATUS) this.httpMajor = this.httpMinor = this.statusCode = 0;
    else if (kind === LineKind.CHUNK_SIZE) this.chunkSize = this.chunkDigits = 0;
  }

  /**
   * Check the line's bytes in `buf` from `pos` (before `end`), carrying on from where the last
   * piece left it. Returns the index after the line's LF, or -1 when the piece ends first or a byte
   * was refused (`failure` then says why).
   */
  scan(buf: Buffer, pos: number, end: number): number {
    if (this.kind === LineKind.STATUS) return this.scanStatusLine(buf, pos, end);
    if (this.kind === LineKind.CHUNK_SIZE) return this.scanChunkSizeLine(buf, pos, end);
    return this.scanHeaderLine(buf, pos, end);
  }

  private refuse(reason: string, code: string): number {
    this.failure = { reason, code };
    return -1;
  }

  /** The line ended at `pos` (its LF); `base` turns buffer indexes into line offsets. */
  private done(base: number, pos: number): number {
    this.length = base + pos + 1;
    return pos + 1;
  }

  private scanStatusLine(buf: Buffer, pos: number, end: number): number {
    const base = this.length - pos;
    let phase = this.phase as StatusPhase;
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
        return this.done(base, pos);
      }
    }
    this.phase = phase;
    this.length = base + end;
    return -1;
  }

  private scanHeaderLine(buf: Buffer, pos: number, end: number): number {
    const base = this.length - pos;
    let phase = this.phase as HeaderPhase;
    while (pos < end) {
      if (phase === H_START) {
        const byte = buf[pos]!;
        if (byte === CR) phase = H_BLOCK_LF;
        else if (TOKEN[byte] === 1) phase = H_NAME;
        else if (byte === SP || byte === HTAB)
          return this.refuse('Unexpected whitespace after header value', 'UNEXPECTED_SPACE');
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
        // H_LF, or H_BLOCK_LF at the end of the block
        if (buf[pos] !== LF) return this.refuse('Missing expected LF after header value', 'LF_EXPECTED');
        this.blank = phase === H_BLOCK_LF;
        return this.done(base, pos);
      }
    }
    this.phase = phase;
    this.length = base + end;
    return -1;
  }

  private bareLineEnd(base: number, pos: number): number {
    this.bareLf = true;
    return this.done(base, pos);
  }

  private scanChunkSizeLine(buf: Buffer, pos: number, end: number): number {
    const base = this.length - pos;
    let phase: ChunkPhase = this.phase;
    for (; pos < end; pos++) {
      const byte = buf[pos]!;
      switch (phase) {
        case C_SIZE: {
          const digit = HEX[byte]!;
          if (digit >= 0) {
            if (this.chunkDigits > 0 || digit > 0) this.chunkDigits++;
            if (this.chunkDigits > MAX_CHUNK_DIGITS) return this.refuse('Chunk size overflow', 'INVALID_CHUNK_SIZE');
            this.chunkSize = this.chunkSize * 16 + digit;
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
          return this.done(base, pos);
      }
    }
    this.phase = phase;
    this.length = base + end;
    return -1;
  }
}
