import { describe, expect, it } from 'vitest';
import { call, requestToken, send, sleep, startTestServer, tokenFor } from '../support/server-helpers.ts';

const basic = (id: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const CREDENTIALS = { grant_type: 'client_credentials', client_id: 'client-a', client_secret: 'demo-secret' };

describe('token request (client credentials)', () => {
  it('client_secret_post: an envelope with access_token, token_type Bearer and expires_in, not cacheable', async () => {
    const server = await startTestServer({ tokenTtlS: 120 });
    const reply = await requestToken(server.url, CREDENTIALS);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      status: 'success',
      data: {
        access_token: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/) as unknown,
        token_type: 'Bearer',
        expires_in: 120,
      },
    });
    expect([reply.headers['content-type'], reply.headers['cache-control'], reply.headers.pragma]).toEqual([
      'application/json',
      'no-store',
      'no-cache',
    ]);
  });

  it('client_secret_basic, with a registered client whose secret needs form-encoding', async () => {
    const server = await startTestServer({ clients: [{ id: 'svc one', secret: 'p@ss:w+rd' }] });
    const reply = await requestToken(
      server.url,
      { grant_type: 'client_credentials' },
      { headers: { authorization: basic('svc one', 'p@ss:w+rd') } },
    );
    expect(reply.status).toBe(200);
    const token = (reply.json as { data: { access_token: string } }).data.access_token;
    expect((await call(server.url, 'ping', token)).status).toBe(200);
    // registered clients switch the demo pattern off
    expect((await requestToken(server.url, CREDENTIALS)).status).toBe(401);
  });

  it('every token issued is different', async () => {
    const server = await startTestServer();
    const tokens = await Promise.all([1, 2, 3].map(() => tokenFor(server.url, 'client-a')));
    expect(new Set(tokens).size).toBe(3);
  });

  it.each([
    ['a wrong secret (post)', { ...CREDENTIALS, client_secret: 'nope' }, undefined, 401, 'invalid_client', undefined],
    [
      'a wrong secret (basic) → Basic challenge',
      { grant_type: 'client_credentials' },
      basic('client-a', 'nope'),
      401,
      'invalid_client',
      'Basic realm="rpcload"',
    ],
    ['an unknown client', { ...CREDENTIALS, client_id: 'mallory' }, undefined, 401, 'invalid_client', undefined],
    ['no client authentication', { grant_type: 'client_credentials' }, undefined, 401, 'invalid_client', undefined],
    ['both post and basic', CREDENTIALS, basic('client-a', 'demo-secret'), 400, 'invalid_request', undefined],
    [
      'no grant_type',
      { client_id: 'client-a', client_secret: 'demo-secret' },
      undefined,
      400,
      'invalid_request',
      undefined,
    ],
    [
      'an unsupported grant_type',
      { ...CREDENTIALS, grant_type: 'password' },
      undefined,
      400,
      'unsupported_grant_type',
      undefined,
    ],
    [
      'a refresh token (none is ever issued)',
      { ...CREDENTIALS, grant_type: 'refresh_token', refresh_token: 'abc' },
      undefined,
      400,
      'invalid_grant',
      undefined,
    ],
  ])('%s → %d %s', async (_name, form, authorization, status, code, challenge) => {
    const server = await startTestServer();
    const reply = await requestToken(
      server.url,
      form,
      authorization === undefined ? {} : { headers: { authorization } },
    );
    expect([reply.status, reply.json, reply.headers['www-authenticate']]).toEqual([
      status,
      { status: 'error', error: code },
      challenge,
    ]);
    expect(server.stats().tokensIssued).toBe(0);
  });

  it('a JSON token request is invalid_request (the token request is form-encoded)', async () => {
    const server = await startTestServer();
    const reply = await send(`${server.url}/api/auth.token`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CREDENTIALS),
    });
    expect([reply.status, reply.json]).toEqual([400, { status: 'error', error: 'invalid_request' }]);
  });

  it('tokenResponse bare: RFC 6749 JSON objects without the envelope', async () => {
    const server = await startTestServer({ tokenResponse: 'bare', tokenTtlS: 60 });
    const ok = await requestToken(server.url, CREDENTIALS);
    expect(ok.json).toEqual({ access_token: expect.any(String) as unknown, token_type: 'Bearer', expires_in: 60 });
    const refused = await requestToken(server.url, { ...CREDENTIALS, client_secret: 'x' });
    expect([refused.status, refused.json]).toEqual([401, { error: 'invalid_client' }]);
  });

  it("the demo secret opens the demo, smoke and bundled examples' client IDs, and no other", async () => {
    const server = await startTestServer();
    const statusFor = async (clientId: string, secret = 'demo-secret'): Promise<number> =>
      (await requestToken(server.url, { ...CREDENTIALS, client_id: clientId, client_secret: secret })).status;
    const opened = ['client-1', 'smoke-2', 'app-3', 'web-1', 'ord-12', 'admin-1', 'user-ada'];
    for (const id of opened) expect([id, await statusFor(id)]).toEqual([id, 200]);
    const refused = ['app-', 'application-1', 'webby-1', 'order-1', 'mallory-1'];
    for (const id of refused) expect([id, await statusFor(id)]).toEqual([id, 401]);
    expect(await statusFor('app-1', 'wrong')).toBe(401);
  });

  it('the token method name is configurable, and a custom client pattern works', async () => {
    const server = await startTestServer({
      tokenMethod: 'oauth2.token',
      clientPattern: { prefix: 'team-', secret: 'team-secret' },
    });
    const token = await tokenFor(server.url, 'team-red', 'team-secret', { tokenMethod: 'oauth2.token' });
    expect(typeof token).toBe('string');
    const viaOldName = await requestToken(server.url, {
      ...CREDENTIALS,
      client_id: 'team-red',
      client_secret: 'team-secret',
    });
    expect(viaOldName.status).toBe(401); // auth.token is now an ordinary method: it needs a bearer token
  });
});

describe('bearer authentication (RFC 6750 §3.1)', () => {
  it.each([
    ['no Authorization header', undefined, 401, 'unauthorized', 'Bearer realm="rpcload"'],
    [
      'an unknown token',
      'Bearer bm90LWEtdG9rZW4',
      401,
      'invalid_token',
      'Bearer realm="rpcload", error="invalid_token", error_description="The access token is unknown or was revoked"',
    ],
    ['another scheme', 'Basic YTpi', 400, 'invalid_request', 'Bearer realm="rpcload", error="invalid_request"'],
    ['Bearer without a token', 'Bearer', 400, 'invalid_request', 'Bearer realm="rpcload", error="invalid_request"'],
    ['a token with spaces', 'Bearer a b', 400, 'invalid_request', 'Bearer realm="rpcload", error="invalid_request"'],
    ['an empty header', '', 400, 'invalid_request', 'Bearer realm="rpcload", error="invalid_request"'],
  ])('%s → %d %s with the exact challenge', async (_name, authorization, status, code, challenge) => {
    const server = await startTestServer();
    const reply = await send(`${server.url}/api/ping`, {
      headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
      body: '{}',
    });
    expect([reply.status, reply.json, reply.headers['www-authenticate']]).toEqual([
      status,
      { status: 'error', error: code },
      challenge,
    ]);
  });

  it('the scheme name is case-insensitive', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const reply = await send(`${server.url}/api/ping`, {
      headers: { 'content-type': 'application/json', authorization: `bearer ${token}` },
      body: '{}',
    });
    expect(reply.status).toBe(200);
  });

  it('a token expires after expires_in', async () => {
    const server = await startTestServer({ tokenTtlS: 1 });
    const token = await tokenFor(server.url, 'client-a');
    expect((await call(server.url, 'ping', token)).status).toBe(200);
    await sleep(1100);
    const expired = await call(server.url, 'ping', token);
    expect([expired.status, expired.headers['www-authenticate']]).toEqual([
      401,
      'Bearer realm="rpcload", error="invalid_token", error_description="The access token expired"',
    ]);
  });

  it('revokeTokens(clientId) invalidates that client only; revokeTokens() all of them', async () => {
    const server = await startTestServer();
    const [a1, a2, b] = await Promise.all([
      tokenFor(server.url, 'client-a'),
      tokenFor(server.url, 'client-a'),
      tokenFor(server.url, 'client-b'),
    ]);
    server.revokeTokens('client-a');
    expect([
      (await call(server.url, 'ping', a1)).status,
      (await call(server.url, 'ping', a2)).status,
      (await call(server.url, 'ping', b)).status,
    ]).toEqual([401, 401, 200]);
    const fresh = await tokenFor(server.url, 'client-a'); // recovery: a new token works
    expect((await call(server.url, 'ping', fresh)).status).toBe(200);
    server.revokeTokens();
    expect([(await call(server.url, 'ping', fresh)).status, (await call(server.url, 'ping', b)).status]).toEqual([
      401, 401,
    ]);
  });

  it('requests refused for auth are not counted against the quota; token requests are not rate-limited', async () => {
    const server = await startTestServer({ limit: 2, windowMs: 60_000 });
    const token = await tokenFor(server.url, 'client-a');
    for (let i = 0; i < 5; i++) expect((await call(server.url, 'ping', 'bm9wZQ')).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await requestToken(server.url, CREDENTIALS)).status).toBe(200);
    expect([
      (await call(server.url, 'ping', token)).status,
      (await call(server.url, 'ping', token)).status,
      (await call(server.url, 'ping', token)).status,
    ]).toEqual([200, 200, 429]);
    // a throttled client can still get tokens
    expect((await requestToken(server.url, CREDENTIALS)).status).toBe(200);
    expect(server.stats()).toMatchObject({ tokensIssued: 7, byClient: { 'client-a': { admitted: 2, refused: 1 } } });
  });
});
