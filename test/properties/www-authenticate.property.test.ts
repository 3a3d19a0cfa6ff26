/** Properties of the WWW-Authenticate parser: generated challenges come back as written; any header parses without throwing. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWwwAuthenticate } from '../../src/api/www-authenticate.ts';

// Names a server may pick that plain objects treat specially are mixed in: random strings seldom hit them.
const token = fc.oneof(
  fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/),
  fc.constantFrom('__proto__', 'constructor', 'toString'),
);
const quotedValue = fc.string({ maxLength: 20 }).filter((s) => !/[\r\n]/.test(s));
const quote = (value: string): string => `"${value.replace(/["\\]/g, (ch) => `\\${ch}`)}"`;
const challenge = fc.record({
  scheme: token,
  params: fc.uniqueArray(fc.tuple(token, quotedValue), { selector: ([name]) => name.toLowerCase(), maxLength: 4 }),
});

describe('parseWwwAuthenticate (property)', () => {
  it('gives back every challenge, scheme and param of a header it could have been sent', () => {
    fc.assert(
      fc.property(fc.array(challenge, { minLength: 1, maxLength: 3 }), (challenges) => {
        const header = challenges
          .map(({ scheme, params }) =>
            [scheme, params.map(([name, value]) => `${name}=${quote(value)}`).join(', ')].filter(Boolean).join(' '),
          )
          .join(', ');
        const parsed = parseWwwAuthenticate(header);
        // A challenge without params followed by another reads the same either way: compare the params that exist.
        expect(parsed.map((c) => c.scheme)).toEqual(challenges.map((c) => c.scheme.toLowerCase()));
        for (const [i, { params }] of challenges.entries()) {
          // fromEntries makes own properties even of `__proto__`, as the parser must.
          expect(parsed[i]!.params).toEqual(
            Object.fromEntries(params.map(([name, value]) => [name.toLowerCase(), value])),
          );
        }
      }),
    );
  });

  it('never throws on any header, and gives lower-cased schemes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 })), (header) => {
        for (const c of parseWwwAuthenticate(header)) expect(c.scheme).toBe(c.scheme.toLowerCase());
      }),
    );
  });
});

describe('parseWwwAuthenticate (examples found by the properties)', () => {
  it('keeps a param named like an Object.prototype member', () => {
    const { params } = parseWwwAuthenticate('Bearer __proto__="x", constructor="y"')[0]!;
    expect(Object.keys(params)).toEqual(['__proto__', 'constructor']);
    expect(JSON.stringify(params)).toBe('{"__proto__":"x","constructor":"y"}');
  });
});
