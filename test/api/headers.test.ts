import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryAfterSeconds } from '../../src/api/retry-after.ts';
import { parseWwwAuthenticate } from '../../src/api/www-authenticate.ts';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each([
    ['7', { form: 'delta', seconds: 7 }],
    ['0', { form: 'delta', seconds: 0 }],
    [' 12 ', { form: 'delta', seconds: 12 }], // surrounding whitespace is tolerated
    ['Sun, 22 Nov 2026 12:00:05 GMT', { form: 'date', seconds: 5 }],
    ['Sun, 22 Nov 2026 11:59:00 GMT', { form: 'date', seconds: 0 }], // a past date means now
    ['1.5', { form: 'invalid', raw: '1.5' }], // fractions are not delay-seconds
    ['-3', { form: 'invalid', raw: '-3' }],
    ['soon', { form: 'invalid', raw: 'soon' }],
    ['', { form: 'invalid', raw: '' }],
    [undefined, { form: 'missing' }],
  ])('%j → %j', (value, expected) => expect(parseRetryAfter(value, NOW)).toEqual(expected));

  it.each([
    ['3', 3],
    [undefined, -1],
    ['x', -2],
  ])('compact form of %j is %d', (value, expected) => expect(retryAfterSeconds(value, NOW)).toBe(expected));
});

describe('parseWwwAuthenticate', () => {
  it.each([
    // RFC 6750 §3 examples
    ['Bearer realm="example"', [{ scheme: 'bearer', params: { realm: 'example' }, token68: null }]],
    [
      'Bearer realm="example", error="invalid_token", error_description="The access token expired"',
      [
        {
          scheme: 'bearer',
          params: { realm: 'example', error: 'invalid_token', error_description: 'The access token expired' },
          token68: null,
        },
      ],
    ],
    // escapes inside quoted strings, unquoted token values, odd spacing
    [
      'Bearer realm="a \\"b\\"" ,error=invalid_request',
      [{ scheme: 'bearer', params: { realm: 'a "b"', error: 'invalid_request' }, token68: null }],
    ],
    // two challenges in one header
    [
      'Basic realm="x", Bearer realm="y", error="invalid_token"',
      [
        { scheme: 'basic', params: { realm: 'x' }, token68: null },
        { scheme: 'bearer', params: { realm: 'y', error: 'invalid_token' }, token68: null },
      ],
    ],
    // token68 form and bare scheme
    ['Negotiate abc123==', [{ scheme: 'negotiate', params: {}, token68: 'abc123==' }]],
    ['Bearer', [{ scheme: 'bearer', params: {}, token68: null }]],
    ['', []],
  ])('%j', (header, expected) => expect(parseWwwAuthenticate(header)).toEqual(expected));

  it('joins repeated headers and survives an unterminated quote', () => {
    expect(parseWwwAuthenticate(['Basic realm="x"', 'Bearer realm="y'])).toEqual([
      { scheme: 'basic', params: { realm: 'x' }, token68: null },
      { scheme: 'bearer', params: { realm: 'y' }, token68: null },
    ]);
  });
});
