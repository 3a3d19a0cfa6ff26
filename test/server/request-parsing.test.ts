import { describe, expect, it } from 'vitest';
import { routeOf } from '../../src/server/app.ts';
import { isJsonContentType, parseJsonObject } from '../../src/server/payload.ts';

describe('routeOf', () => {
  it.each([
    ['POST', '/api/ping', { method: 'ping' }],
    ['POST', '/api/items.list?x=1', { method: 'items.list' }], // a query string is ignored
    ['POST', '/api/auth.token', { method: 'auth.token' }],
    ['GET', '/api/ping', 405], // other HTTP methods on /api/* are not allowed…
    ['PUT', '/api/nope', 405], // …whatever the name
    ['POST', '/', 404], // outside /api/
    ['POST', '/api', 404],
    ['POST', '/api/', 404], // no method name
    ['POST', '/api/a/b', 404], // not a method name
    ['POST', '/api/%70ing', 404], // names are not percent-decoded
    ['GET', '/favicon.ico', 404], // other paths are 404 for every HTTP method
  ] as const)('%s %s → %j', (httpMethod, url, expected) => {
    const route = routeOf(httpMethod, url);
    expect('method' in route ? route : route.status).toEqual(expected);
  });

  it('405 carries Allow: POST', () => {
    const route = routeOf('DELETE', '/api/ping');
    expect('status' in route && route.headers).toEqual({ Allow: 'POST' });
  });
});

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON;charset="UTF-8"', true], // case-insensitive, quoted parameter
    ['application/json; charset=iso-8859-1', false], // only UTF-8 is JSON's encoding
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    ['application/jsonx', false],
    ['', false],
    [undefined, false], // no Content-Type at all
  ])('%j → %s', (header, expected) => expect(isJsonContentType(header)).toBe(expected));
});

describe('parseJsonObject', () => {
  it.each([
    ['{}', {}],
    ['{"a":[1,2],"b":{"c":null}}', { a: [1, 2], b: { c: null } }],
    [' \n{"x":"é"}\n', { x: 'é' }], // whitespace around the object is JSON
    ['[]', undefined], // an array is not an object
    ['null', undefined],
    ['"text"', undefined],
    ['42', undefined],
    ['{"a":', undefined], // truncated
    ['', undefined], // empty body
    ["{'a':1}", undefined], // not JSON
  ])('%j → %j', (text, expected) => expect(parseJsonObject(Buffer.from(text))).toEqual(expected));

  it('refuses invalid UTF-8 instead of replacing characters', () => {
    expect(parseJsonObject(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]))).toBeUndefined();
  });
});
