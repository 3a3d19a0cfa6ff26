import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/api/undici-agents.ts';
import { callApi, type ApiTransport } from '../../src/api/http-call.ts';
import { NodeHttpTransport } from '../../src/api/node-transport.ts';
import { requestToken, type TokenRequest } from '../../src/api/token.ts';
import { sendJson, startScriptedServer, type TestServer } from '../support/http-server.ts';

let server: TestServer | undefined;
// The same calls over undici (verify's client) and Node's own (a run's token requests): the same replies.
const TRANSPORTS: [string, ApiTransport][] = [
  ['undici', createDispatcher()],
  ['node:http', new NodeHttpTransport({})],
];
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request = (baseUrl: string, overrides: Partial<TokenRequest> = {}): TokenRequest => ({
  baseUrl,
  tokenMethod: 'auth.token',
  clientId: 'client one',
  clientSecret: 's3cret:+/=',
  clientAuth: 'post',
  ...overrides,
});

describe.each(TRANSPORTS)('requestToken over %s', (_, dispatcher) => {
  it('sends a form-encoded client_secret_post request and reads an enveloped token', async () => {
    server = await startScriptedServer((_req, res) =>
      sendJson(res, 200, { status: 'success', data: { access_token: 'tok-1', token_type: 'Bearer', expires_in: 60 } }),
    );
    const result = await requestToken(
      dispatcher,
      request(server.url, { scope: 'read', extraFields: { audience: 'api' } }),
    );
    expect(result).toMatchObject({ ok: true, accessToken: 'tok-1', expiresInS: 60, shape: 'envelope' });
    const seen = server.seen[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/api/auth.token');
    expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(seen.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(seen.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'read',
      audience: 'api',
      client_id: 'client one',
      client_secret: 's3cret:+/=',
    });
  });

  it('sends client_secret_basic with form-encoded credentials (RFC 6749 §2.3.1) and reads a bare token', async () => {
    server = await startScriptedServer((_req, res) =>
      sendJson(res, 200, { access_token: 'tok-2', token_type: 'bearer', expires_in: '30' }),
    );
    const result = await requestToken(dispatcher, request(server.url, { clientAuth: 'basic' }));
    expect(result).toMatchObject({ ok: true, accessToken: 'tok-2', expiresInS: 30, shape: 'bare' });
    const seen = server.seen[0]!;
    const decoded = Buffer.from(String(seen.headers.authorization).replace(/^Basic /, ''), 'base64').toString();
    expect(decoded).toBe('client+one:s3cret%3A%2B%2F%3D');
    expect(Object.fromEntries(new URLSearchParams(seen.body))).toEqual({ grant_type: 'client_credentials' });
  });

  it.each([
    // RFC 6749 §5.2 errors, enveloped and bare
    [401, { status: 'error', error: 'invalid_client' }, 'error:invalid_client'],
    [400, { error: 'unsupported_grant_type', error_description: 'nope' }, 'error:unsupported_grant_type'],
    // no token at all
    [200, { status: 'success', data: {} }, 'envelope_violation'],
    [200, 'not json', 'envelope_violation'],
    [502, '<html>', 'http:502'],
    // a token that is not a bearer token cannot be used
    [200, { access_token: 'x', token_type: 'mac' }, 'error:unsupported_token_type'],
  ])('HTTP %i %j → %s, without leaking the secret', async (status, body, outcome) => {
    server = await startScriptedServer((_req, res) => sendJson(res, status, body));
    const result = await requestToken(dispatcher, request(server.url));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.outcome).toBe(outcome);
      expect(result.detail).not.toContain('s3cret');
    }
  });

  it('reports an unreachable server as a transport outcome', async () => {
    server = await startScriptedServer(() => undefined);
    const url = server.url;
    await server.close();
    server = undefined;
    const result = await requestToken(dispatcher, request(url, { timeoutMs: 2000 }));
    expect(result).toMatchObject({ ok: false, outcome: 'transport:ECONNREFUSED', status: 0 });
  });
});

describe.each(TRANSPORTS)('callApi over %s', (_, dispatcher) => {
  it('posts JSON with the bearer token and classifies the reply', async () => {
    server = await startScriptedServer((req, res) =>
      sendJson(res, 200, { status: 'success', data: { echo: JSON.parse(req.body) as unknown } }),
    );
    const reply = await callApi(dispatcher, { baseUrl: server.url, method: 'echo', body: '{"a":1}', token: 'tok' });
    expect(reply.status).toBe(200);
    expect(reply.classification?.outcome).toBe('success');
    expect(reply.classification?.data).toEqual({ echo: { a: 1 } });
    expect(server.seen[0]!.headers.authorization).toBe('Bearer tok');
    expect(server.seen[0]!.headers['content-type']).toBe('application/json');
    expect(reply.doneAtMs).toBeGreaterThanOrEqual(reply.headersAtMs);
    expect(reply.headersAtMs).toBeGreaterThanOrEqual(reply.sentAtMs);
  });

  it('keeps only the capped part of a huge body but counts it all', async () => {
    server = await startScriptedServer((_req, res) =>
      sendJson(res, 200, `{"status":"success","data":{"blob":"${'x'.repeat(300_000)}"}}`),
    );
    const reply = await callApi(dispatcher, { baseUrl: server.url, method: 'big', bodyCapBytes: 1000 });
    expect(reply.body.length).toBe(1000);
    expect(reply.bodyBytes).toBeGreaterThan(300_000);
    expect(reply.truncated).toBe(true);
    expect(reply.classification?.outcome).toBe('envelope_violation');
  });

  it('turns a reset connection into a transport outcome', async () => {
    server = await startScriptedServer((_req, res) => res.socket?.destroy());
    const reply = await callApi(dispatcher, { baseUrl: server.url, method: 'ping' });
    expect(reply.status).toBe(0);
    expect(reply.transportError).toMatch(/^transport:/);
    expect(reply.classification).toBeNull();
  });
});
