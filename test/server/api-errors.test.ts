import { describe, expect, it } from 'vitest';
import { call, send, startTestServer, tokenFor } from '../support/server-helpers.ts';

const ERROR = (code: string): unknown => ({ status: 'error', error: code });

describe('routing and the error envelope over HTTP', () => {
  it.each([
    ['GET', '/', 404, 'not_found'],
    ['POST', '/v1/ping', 404, 'not_found'],
    ['POST', '/api/', 404, 'not_found'],
    ['GET', '/api/ping', 405, 'method_not_allowed'],
    ['DELETE', '/api/auth.token', 405, 'method_not_allowed'],
  ] as const)('%s %s → %d %s envelope', async (method, path, status, code) => {
    const server = await startTestServer();
    const reply = await send(`${server.url}${path}`, { method });
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.json).toEqual(ERROR(code));
    if (status === 405) expect(reply.headers.allow).toBe('POST');
  });

  it.each([
    ['no Content-Type', {}, '{}', 415, 'invalid_arguments'],
    ['text/plain', { 'content-type': 'text/plain' }, '{}', 415, 'invalid_arguments'],
    ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1', 415, 'invalid_arguments'],
    ['bad JSON', { 'content-type': 'application/json' }, '{"a":', 400, 'invalid_arguments'],
    ['an empty body', { 'content-type': 'application/json' }, '', 400, 'invalid_arguments'],
    ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'invalid_arguments'],
    ['a JSON string', { 'content-type': 'application/json' }, '"hi"', 400, 'invalid_arguments'],
    ['null', { 'content-type': 'application/json' }, 'null', 400, 'invalid_arguments'],
    [
      'invalid UTF-8',
      { 'content-type': 'application/json' },
      Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]),
      400,
      'invalid_arguments',
    ],
  ])('ping with %s → %d %s', async (_name, headers, body, status, code) => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const reply = await send(`${server.url}/api/ping`, {
      headers: { authorization: `Bearer ${token}`, ...headers },
      body,
    });
    expect([reply.status, reply.json]).toEqual([status, ERROR(code)]);
    expect(reply.headers['content-type']).toBe('application/json');
  });

  it('an unknown method is 404 not_found, after auth and after the rate limit (it counts)', async () => {
    const server = await startTestServer({ limit: 2, windowMs: 60_000 });
    const token = await tokenFor(server.url, 'client-a');
    expect((await call(server.url, 'no.such.method', undefined)).status).toBe(401); // auth comes first
    const unknown = await call(server.url, 'no.such.method', token);
    expect([unknown.status, unknown.json]).toEqual([404, ERROR('not_found')]);
    expect((await call(server.url, 'ping', token)).status).toBe(200);
    expect((await call(server.url, 'ping', token)).status).toBe(429); // the 404 used one of the 2
    expect(server.stats().byClient['client-a']).toEqual({ admitted: 2, refused: 1 });
  });

  it('a method that throws is 500 unexpected_error, and the server carries on', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    // Within the payload limit, but too deep for JSON.stringify: echo throws while answering.
    const depth = 40_000;
    const reply = await call(server.url, 'echo', token, undefined, {
      body: `{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    });
    expect([reply.status, reply.json]).toEqual([500, ERROR('unexpected_error')]);
    expect((await call(server.url, 'ping', token)).json).toEqual({ status: 'success', data: { pong: true } });
  });

  it('ping, echo: success envelopes with application/json', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const ping = await call(server.url, 'ping', token);
    expect([ping.status, ping.headers['content-type'], ping.json]).toEqual([
      200,
      'application/json',
      { status: 'success', data: { pong: true } },
    ]);
    // A "__proto__" key is plain data to JSON.parse, and must come back as such.
    const args = '{"text":"héllo","list":[1,{"nested":null}],"__proto__":{"polluted":true}}';
    const echo = await call(server.url, 'echo', token, undefined, { body: args });
    expect(echo.text).toBe(`{"status":"success","data":${args}}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
