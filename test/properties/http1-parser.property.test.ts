/**
 * Properties of rpcload's HTTP/1.1 response parser: a valid response parses to what was sent
 * however its bytes are split (pipelined responses included, with chunked bodies, extensions,
 * trailers and interim 1xx responses); nothing past a response is read as part of it; and bad
 * lengths, oversized heads, control characters, obs-fold and garbage are refused — never taken for
 * a success, never left waiting once the connection closes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_HEADER_BYTES, Expectation, ResponseParser } from '../../src/driver/http1/response-parser.ts';
import type { ResponseSink } from '../../src/driver/http1/response-parser.ts';
import { transportOutcome } from '../../src/api/outcome.ts';

interface Parsed {
  status: number;
  headers: string[];
  body: Buffer[];
  trailers: string[] | null;
  keepAlive: boolean | null;
}

/** A sink that records what the parser reports; `expected` responses are awaited, then none. */
class RecordingSink implements ResponseSink {
  readonly messages: Parsed[] = [];
  begins = 0;
  constructor(private expected: number) {}
  onMessageBegin(): Expectation {
    this.begins++;
    if (this.expected === 0) return Expectation.UNEXPECTED;
    this.expected--;
    return Expectation.BODY;
  }
  onHead(status: number, rawHeaders: string[]): boolean {
    this.messages.push({ status, headers: [...rawHeaders], body: [], trailers: null, keepAlive: null });
    return true;
  }
  onBody(chunk: Buffer): boolean {
    this.messages.at(-1)!.body.push(Buffer.from(chunk));
    return true;
  }
  onMessageComplete(trailers: string[], keepAlive: boolean): boolean {
    const last = this.messages.at(-1)!;
    last.trailers = [...trailers];
    last.keepAlive = keepAlive;
    return true;
  }
  /** Completed responses as plain values (bodies joined). */
  completed(): { status: number; headers: string[]; body: string; trailers: string[] }[] {
    return this.messages
      .filter((m) => m.trailers !== null)
      .map((m) => ({
        status: m.status,
        headers: m.headers,
        body: Buffer.concat(m.body).toString('latin1'),
        trailers: m.trailers!,
      }));
  }
}

/** Feed `bytes` cut at `cuts` (any numbers; taken modulo the length), then the close when `close`. */
function parse(
  bytes: Buffer,
  cuts: readonly number[],
  expected: number,
  close = false,
): { sink: RecordingSink; error: Error | null } {
  const sink = new RecordingSink(expected);
  const parser = new ResponseParser(sink);
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
  let start = 0;
  let error: Error | null = null;
  for (const point of [...points, bytes.length]) {
    if (point <= start) continue;
    error = parser.execute(bytes.subarray(start, point));
    start = point;
    if (error !== null) break;
  }
  if (error === null && close) error = parser.finish();
  return { sink, error };
}

const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,16}$/);
const framingNames = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);
const headerName = token.filter((name) => !framingNames.has(name.toLowerCase()));
/** A value without leading or trailing whitespace: visible characters and inner spaces. */
const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,30}[\x21-\x7e])?$/);
const headerList = fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 });
const reason = fc.stringMatching(/^[A-Za-z ]{0,12}$/);
const bodyText = fc.stringMatching(/^[\x20-\x7e]{0,200}$/);
const randomCase = (name: string, mask: number): string =>
  [...name].map((ch, i) => ((mask >> (i % 16)) & 1 ? ch.toUpperCase() : ch)).join('');

interface ValidResponse {
  readonly bytes: string;
  readonly status: number;
  readonly headers: string[];
  readonly body: string;
  readonly trailers: string[];
}

/** A valid response (after 0–2 interim ones), framed by Content-Length, chunked, or with no body (204/304). */
const validResponse: fc.Arbitrary<ValidResponse> = fc
  .record({
    interim: fc.array(fc.record({ status: fc.constantFrom(100, 102, 103), headers: headerList }), { maxLength: 2 }),
    status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 304),
    reason,
    headers: headerList,
    framing: fc.constantFrom('length', 'chunked', 'none'),
    body: bodyText,
    cuts: fc.array(fc.nat(), { maxLength: 5 }),
    extensions: fc.array(fc.constantFrom('', ';a', ';a=b', ';a="b c"', ';x=1;y'), { minLength: 6, maxLength: 6 }),
    trailers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 2 }),
    nameCase: fc.nat(),
    ows: fc.constantFrom('', ' ', '\t', '  '),
  })
  .map((r) => {
    const lines = (headers: readonly (readonly [string, string])[]): string =>
      headers.map(([n, v]) => `${n}:${r.ows}${v}${r.ows}\r\n`).join('');
    const interim = r.interim.map((i) => `HTTP/1.1 ${i.status} Interim\r\n${lines(i.headers)}\r\n`).join('');
    const status = r.framing === 'none' ? (r.nameCase % 2 === 0 ? 204 : 304) : r.status;
    const headers = r.headers.map(([n, v]) => [n, v] as const);
    let framed = '';
    let body = r.body;
    let trailers: string[] = [];
    if (r.framing === 'length') {
      const name = randomCase('content-length', r.nameCase);
      framed = `${name}:${r.ows}${Buffer.byteLength(body)}${r.ows}\r\n`;
      headers.push([name, String(Buffer.byteLength(body))]);
    } else if (r.framing === 'chunked') {
      const name = randomCase('transfer-encoding', r.nameCase);
      framed = `${name}: chunked\r\n`;
      headers.push([name, 'chunked']);
    } else body = '';
    let encodedBody = body;
    if (r.framing === 'chunked') {
      const points = [...new Set(r.cuts.map((c) => (body.length === 0 ? 0 : c % body.length)))]
        .filter((p) => p > 0)
        .sort((a, b) => a - b);
      const pieces: string[] = [];
      let from = 0;
      for (const p of [...points, body.length]) if (p > from) pieces.push(body.slice(from, (from = p)));
      encodedBody = pieces
        .map((piece, i) => `${piece.length.toString(16)}${r.extensions[i % 6]}\r\n${piece}\r\n`)
        .join('');
      encodedBody += `0${r.extensions[5]}\r\n${lines(r.trailers)}\r\n`;
      trailers = r.trailers.flat();
    }
    const head = `HTTP/1.1 ${status}${r.reason === '' ? '' : ` ${r.reason}`}\r\n${lines(r.headers)}${framed}\r\n`;
    return { bytes: `${interim}${head}${encodedBody}`, status, headers: headers.flat(), body, trailers };
  });

/** Control characters but HTAB: never in a header field the parser accepted. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/; // eslint-disable-line no-control-regex

const cuts = fc.array(fc.nat({ max: 100_000 }), { maxLength: 12 });

describe('ResponseParser (property)', () => {
  it('parses pipelined valid responses to what was sent, however the bytes are split', () => {
    fc.assert(
      fc.property(fc.array(validResponse, { minLength: 1, maxLength: 3 }), cuts, (responses, splits) => {
        const bytes = Buffer.from(responses.map((r) => r.bytes).join(''), 'latin1');
        const whole = parse(bytes, [], responses.length);
        const split = parse(bytes, splits, responses.length);
        expect(whole.error).toBeNull();
        expect(split.error).toBeNull();
        const expected = responses.map(({ status, headers, body, trailers }) => ({ status, headers, body, trailers }));
        expect(whole.sink.completed()).toEqual(expected);
        expect(split.sink.completed()).toEqual(expected);
      }),
    );
  });

  it('reads a head identical to the last one as it was read, and any other head afresh', () => {
    // A, A (the remembered head), B, A: a head differing anywhere is parsed again, not replayed.
    fc.assert(
      fc.property(validResponse, validResponse, cuts, (a, b, splits) => {
        const sequence = [a, a, b, a];
        const bytes = Buffer.from(sequence.map((r) => r.bytes).join(''), 'latin1');
        const expected = sequence.map(({ status, headers, body, trailers }) => ({ status, headers, body, trailers }));
        for (const split of [[], splits]) {
          const { sink, error } = parse(bytes, split, sequence.length);
          expect(error).toBeNull();
          expect(sink.completed()).toEqual(expected);
        }
      }),
    );
  });

  it('never reads past a response: bytes after the awaited ones fail as a response without a request', () => {
    fc.assert(
      fc.property(validResponse, fc.uint8Array({ minLength: 1, maxLength: 40 }), cuts, (response, extra, splits) => {
        const bytes = Buffer.concat([Buffer.from(response.bytes, 'latin1'), Buffer.from(extra)]);
        const { sink, error } = parse(bytes, splits, 1);
        expect(sink.completed()).toEqual([
          { status: response.status, headers: response.headers, body: response.body, trailers: response.trailers },
        ]);
        expect(error?.message).toBe('bad response');
        expect(transportOutcome(error)).toBe('transport:UND_ERR_SOCKET');
      }),
    );
  });

  it('a response cut short by the close is an error, never a success, and nothing waits', () => {
    fc.assert(
      fc.property(validResponse, fc.nat(), cuts, (response, at, splits) => {
        const full = Buffer.from(response.bytes, 'latin1');
        fc.pre(full.length > 1);
        const truncated = full.subarray(0, at % full.length);
        const { sink, error } = parse(truncated, splits, 1, true);
        expect(sink.completed()).toEqual([]);
        if (truncated.length > 0)
          expect(transportOutcome(error)).toMatch(
            /^transport:(UND_ERR_SOCKET|invalid_http|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)$/,
          );
      }),
    );
  });

  it('refuses a Content-Length that is not a plain decimal number within 2^64 − 1, whatever the split', () => {
    const badLength = fc.oneof(
      fc.constantFrom('+5', '-1', '1 2', '0x10', '', '5,5', '1e3', '18446744073709551616', '99999999999999999999999'),
      fc.stringMatching(/^[0-9]{0,3}[^0-9\r\n \t][\x20-\x7e]{0,4}$/),
    );
    fc.assert(
      fc.property(badLength, cuts, (value, splits) => {
        const bytes = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${value}\r\n\r\n{}`, 'latin1');
        const { sink, error } = parse(bytes, splits, 1, true);
        expect(sink.completed()).toEqual([]);
        expect(transportOutcome(error)).toMatch(/^transport:(invalid_http|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)$/);
      }),
    );
  });

  it('refuses two Content-Lengths, and Content-Length beside Transfer-Encoding', () => {
    const heads = fc.constantFrom(
      'content-length: 2\r\ncontent-length: 2',
      'content-length: 2\r\ncontent-length: 3',
      'transfer-encoding: chunked\r\ncontent-length: 2',
      'content-length: 2\r\ntransfer-encoding: chunked',
    );
    fc.assert(
      fc.property(heads, cuts, (head, splits) => {
        const { sink, error } = parse(
          Buffer.from(`HTTP/1.1 200 OK\r\n${head}\r\n\r\n2\r\n{}\r\n0\r\n\r\n`, 'latin1'),
          splits,
          1,
          true,
        );
        expect(sink.completed()).toEqual([]);
        expect(transportOutcome(error)).toMatch(/^transport:(invalid_http|UND_ERR_RES_CONTENT_LENGTH_MISMATCH)$/);
      }),
    );
  });

  it('refuses bad chunk sizes and extensions', () => {
    const badSize = fc.oneof(
      fc.constantFrom('', ' 2', '2 ', '-2', '0x2', 'g', '2 ;a', '2;', '2;a=', '2;a="b', '2;a b', '10000000000000000'),
      fc.stringMatching(/^[0-9a-f]{0,2}[^0-9a-fA-F;\r\n][\x20-\x7e]{0,3}$/),
    );
    fc.assert(
      fc.property(badSize, cuts, (size, splits) => {
        const bytes = Buffer.from(
          `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${size}\r\n{}\r\n0\r\n\r\n`,
          'latin1',
        );
        const { sink, error } = parse(bytes, splits, 1, true);
        expect(sink.completed()).toEqual([]);
        expect(transportOutcome(error)).toBe('transport:invalid_http');
      }),
    );
  });

  it('refuses control characters, obs-fold and bare line ends in the head', () => {
    const control = fc
      .integer({ min: 0, max: 31 })
      .filter((c) => c !== 9)
      .map((c) => String.fromCharCode(c));
    const broken = fc.oneof(
      fc
        .tuple(headerName, headerValue, control, fc.nat())
        .map(([n, v, c, at]) => `${n}: ${v.slice(0, at % (v.length + 1))}${c}${v.slice(at % (v.length + 1))}\r\n`),
      fc.tuple(headerName, headerValue, fc.constant('\x7f')).map(([n, v, c]) => `${n}: ${v}${c}\r\n`),
      fc
        .tuple(headerName, headerValue, fc.constantFrom(' ', '\t'))
        .map(([n, v, ws]) => `${n}: ${v}\r\n${ws}folded\r\n`),
      fc.tuple(headerName, headerValue).map(([n, v]) => `${n} : ${v}\r\n`),
      fc.tuple(headerName, headerValue).map(([n, v]) => `${n}: ${v}\n`),
      fc.tuple(headerValue).map(([v]) => `: ${v}\r\n`),
    );
    fc.assert(
      fc.property(broken, cuts, (line, splits) => {
        const bytes = Buffer.from(`HTTP/1.1 200 OK\r\n${line}content-length: 2\r\n\r\n{}`, 'latin1');
        const { sink, error } = parse(bytes, splits, 1, true);
        expect(sink.completed()).toEqual([]);
        expect(transportOutcome(error)).toBe('transport:invalid_http');
      }),
    );
  });

  it('refuses a head over the header size limit as headers_too_large, however it arrives', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: DEFAULT_MAX_HEADER_BYTES, max: 3 * DEFAULT_MAX_HEADER_BYTES }),
        fc.integer({ min: 1, max: 40 }),
        cuts,
        (size, lines, splits) => {
          const each = Math.ceil(size / lines);
          const block = Array.from({ length: lines }, (_, i) => `x-${i}: ${'a'.repeat(each)}\r\n`).join('');
          const { sink, error } = parse(
            Buffer.from(`HTTP/1.1 200 OK\r\n${block}content-length: 2\r\n\r\n{}`, 'latin1'),
            splits,
            1,
            true,
          );
          expect(sink.completed()).toEqual([]);
          expect(transportOutcome(error)).toBe('transport:headers_too_large');
        },
      ),
    );
  });

  it('fails garbage at once, without reporting a response, whatever arrives after it', () => {
    const garbage = fc
      .uint8Array({ minLength: 1, maxLength: 200 })
      .filter((bytes) => !Buffer.from(bytes).toString('latin1').startsWith('HTTP/'.slice(0, bytes.length)));
    fc.assert(
      fc.property(garbage, cuts, (bytes, splits) => {
        const { sink, error } = parse(Buffer.from(bytes), splits, 1, true);
        expect(sink.messages).toEqual([]);
        expect(transportOutcome(error)).toBe('transport:invalid_http');
      }),
    );
  });

  it('never completes a response from random bytes after a valid status line unless they form a valid head', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 120 }), cuts, (bytes, splits) => {
        const input = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n', 'latin1'), Buffer.from(bytes)]);
        const { sink, error } = parse(input, splits, 1, true);
        // Whatever happened, the close ends it: a response, or an error — never nothing.
        expect(sink.completed().length === 1 || error !== null).toBe(true);
        for (const message of sink.completed()) {
          for (const field of message.headers) expect(field).not.toMatch(CONTROL);
        }
      }),
    );
  });
});
