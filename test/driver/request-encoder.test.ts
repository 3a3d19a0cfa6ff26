import { describe, expect, it } from 'vitest';
import { errors } from 'undici';
import { encodeRequest, TracedRequestBuffer } from '../../src/driver/http1/request-encoder.ts';

const TP = (n: number): string => `00-${n.toString(16).padStart(32, '0')}-${'1'.repeat(16)}-01`;

describe('encodeRequest: a traceparent kept apart from the header list', () => {
  const clientHeaders = ['authorization', 'Bearer abc', 'user-agent', 'rpcload/test'];

  it.each([
    ['a body', Buffer.from('{"a":1}')],
    ['an empty body', Buffer.alloc(0)],
  ])('writes the bytes the same request writes with it last in the list (%s)', (_, body) => {
    for (let n = 1; n <= 3; n++) {
      const apart = encodeRequest(
        '127.0.0.1:8080',
        {
          method: 'POST',
          path: '/api/ping',
          headers: clientHeaders,
          body,
          traceparent: TP(n),
        },
        new TracedRequestBuffer(),
      );
      const inList = encodeRequest(
        '127.0.0.1:8080',
        {
          method: 'POST',
          path: '/api/ping',
          headers: clientHeaders.concat('traceparent', TP(n)),
          body,
          traceparent: null,
        },
        new TracedRequestBuffer(),
      );
      expect(apart.toString('latin1')).toBe(inList.toString('latin1'));
      expect(apart.toString('latin1')).toContain(
        `user-agent: rpcload/test\r\ntraceparent: ${TP(n)}\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
    }
  });

  it('keeps the head of a list reused without one: the same bytes, not re-encoded', () => {
    const body = Buffer.from('{}');
    const head = { method: 'POST', path: '/api/x', headers: clientHeaders, body, traceparent: null };
    const traced = new TracedRequestBuffer();
    const first = encodeRequest('h', head, traced);
    expect(encodeRequest('h', { ...head }, traced)).toBe(first);
  });

  it('refuses a traceparent undici would refuse (a header injection)', () => {
    const options = {
      method: 'POST',
      path: '/api/x',
      headers: clientHeaders,
      body: Buffer.from('{}'),
      traceparent: 'x\r\nevil: 1',
    };
    expect(() => encodeRequest('h', options, new TracedRequestBuffer())).toThrow(errors.InvalidArgumentError);
  });
});

describe("encodeRequest into a connection's TracedRequestBuffer", () => {
  const headers = ['authorization', 'Bearer abc'];
  const request = (n: number, body: Buffer, path = '/api/ping') => ({
    method: 'POST',
    path,
    headers,
    body,
    traceparent: TP(n),
  });
  const fresh = (n: number, body: Buffer, path?: string): string =>
    encodeRequest('h:1', request(n, body, path), new TracedRequestBuffer()).toString('latin1');

  it("writes each request's own traceparent into the one buffer, with the same bytes as a fresh encoding", () => {
    const traced = new TracedRequestBuffer();
    const body = Buffer.from('{"a":1}');
    const first = encodeRequest('h:1', request(1, body), traced);
    expect(first.toString('latin1')).toBe(fresh(1, body));
    const second = encodeRequest('h:1', request(2, body), traced);
    expect(second).toBe(first); // no new buffer
    expect(second.toString('latin1')).toBe(fresh(2, body));
    // Another body, path or length: the bytes follow.
    const other = Buffer.from('{"b":22}');
    expect(encodeRequest('h:1', request(3, other), traced).toString('latin1')).toBe(fresh(3, other));
    expect(encodeRequest('h:1', request(4, other, '/api/x'), traced).toString('latin1')).toBe(
      fresh(4, other, '/api/x'),
    );
    expect(encodeRequest('h:1', request(5, body), traced).toString('latin1')).toBe(fresh(5, body));
  });

  it('leaves bytes a write may still hold alone once released', () => {
    const traced = new TracedRequestBuffer();
    const body = Buffer.from('{}');
    const held = encodeRequest('h:1', request(1, body), traced);
    traced.release();
    const next = encodeRequest('h:1', request(2, body), traced);
    expect(next).not.toBe(held);
    expect([held.toString('latin1'), next.toString('latin1')]).toEqual([fresh(1, body), fresh(2, body)]);
  });
});

describe('encodeRequest: the Host', () => {
  const body = Buffer.from('{}');
  const request = (headers: string[]): string =>
    encodeRequest(
      '127.0.0.1:8080',
      { method: 'POST', path: '/x', headers, body, traceparent: null },
      new TracedRequestBuffer(),
    ).toString('latin1');

  it("is the connection's, or a listed host (a sign module's) in its place: never two", () => {
    expect(request(['a', '1'])).toMatch(
      /^POST \/x HTTP\/1\.1\r\nhost: 127\.0\.0\.1:8080\r\nconnection: keep-alive\r\n/,
    );
    const signed = request(['a', '1', 'Host', 'api.example.test']);
    expect(signed).toMatch(/^POST \/x HTTP\/1\.1\r\nhost: api\.example\.test\r\nconnection: keep-alive\r\na: 1\r\n/);
    expect(signed.match(/host:/gi)).toHaveLength(1);
  });
});
