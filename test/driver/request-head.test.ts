/** The request-head rules every load connection applies (request-head.ts), as tables. */
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { checkRequestHead, expectsPayload, hostIndex } from '../../src/driver/request-head.ts';

describe('expectsPayload: a Content-Length even for an empty body, as undici sends it', () => {
  it.each([
    ['POST', true],
    ['PUT', true],
    ['PATCH', true],
    ['QUERY', true], // rpcload's HTTP/2 sent none for these three before: one list now, undici's HTTP/1.1 one
    ['PROPFIND', true],
    ['PROPPATCH', true],
    ['GET', false],
    ['HEAD', false],
    ['DELETE', false],
    ['OPTIONS', false],
  ])('%s → %s', (method, expected) => {
    expect(expectsPayload(method)).toBe(expected);
  });
});

describe('checkRequestHead: what undici refuses', () => {
  it.each([
    ['/api/ping', ['authorization', 'Bearer t'], null],
    ['/api/ping', ['authorization', 'Bearer t\r\nx-evil: 1'], 'invalid authorization header'], // an injection
    ['/api/ping', ['x-a', 'caf\u00e9\t1'], null], // latin1 and tabs are values
    ['/api/ping', ['bad name', '1'], 'invalid header key'],
    ['/api/ping', ['x-a', 'a\u0000b'], 'invalid x-a header'],
    ['/api/p ng', [], 'invalid request path'],
    ['/api/p\u0100ng', [], 'invalid request path'], // beyond latin1
  ])('%s %j → %s', (path, headers, refusal) => {
    const check = (): void => checkRequestHead(path, headers);
    if (refusal === null) expect(check).not.toThrow();
    else expect(check).toThrow(new errors.InvalidArgumentError(refusal));
  });
});

describe('hostIndex: a listed Host (a sign module’s)', () => {
  it.each([
    [['a', '1'], -1],
    [['host', 'x'], 0],
    [['a', '1', 'HoSt', 'x'], 2],
    [['hosts', 'x'], -1],
  ])('%j → %i', (headers, index) => {
    expect(hostIndex(headers)).toBe(index);
  });
});
