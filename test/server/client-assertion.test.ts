/**
 * The reference server verifying private_key_jwt client assertions (RFC 7523) at its token
 * endpoint: the right key passes; a wrong key, an expired assertion, a wrong audience, a replayed
 * jti, an iss that is not the client_id and an unregistered client are each refused with 401
 * invalid_client and an error_description that says why.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { CLIENT_ASSERTION_TYPE } from '../../src/api/client-assertion.ts';
import { requestToken, startTestServer } from '../support/server-helpers.ts';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString();

interface Claims {
  readonly iss?: string;
  readonly sub?: string;
  readonly aud?: string;
  readonly jti?: string;
  /** Seconds from now. */
  readonly expInS?: number;
  /** Which key signs it (the registered RSA key unless named). */
  readonly key?: 'other-rsa' | 'stranger';
  /** The client_id sent beside it (default app-rsa). */
  readonly clientId?: string;
}

function assertion(key: KeyObject, alg: string, audience: string, claims: Claims = {}): Promise<string> {
  const nowS = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg })
    .setIssuer(claims.iss ?? 'app-rsa')
    .setSubject(claims.sub ?? claims.iss ?? 'app-rsa')
    .setAudience(claims.aud ?? audience)
    .setJti(claims.jti ?? randomUUID())
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + (claims.expInS ?? 60))
    .sign(key);
}

async function server() {
  return startTestServer({
    clients: [{ id: 'app-secret', secret: 'plain-secret' }],
    clientKeys: [
      { id: 'app-rsa', key: pem(rsa.publicKey) },
      { id: 'app-ec', key: JSON.stringify(ec.publicKey.export({ format: 'jwk' })) },
    ],
  });
}

const form = (clientId: string, jwt: string): Record<string, string> => ({
  grant_type: 'client_credentials',
  client_id: clientId,
  client_assertion_type: CLIENT_ASSERTION_TYPE,
  client_assertion: jwt,
});

describe('private_key_jwt at the reference server', () => {
  it('issues a token for an assertion signed with the registered key (RS256, PS256, ES256 from a JWK)', async () => {
    const s = await server();
    const audience = `${s.url}/api/auth.token`;
    for (const [id, key, alg] of [
      ['app-rsa', rsa.privateKey, 'RS256'],
      ['app-rsa', rsa.privateKey, 'PS256'],
      ['app-ec', ec.privateKey, 'ES256'],
    ] as const) {
      const reply = await requestToken(s.url, form(id, await assertion(key, alg, audience, { iss: id })));
      expect(reply.status, reply.text).toBe(200);
      expect((reply.json as { data: { access_token: string } }).data.access_token).toMatch(/\S{20,}/);
    }
    // a secret still works for a client registered with one
    expect(
      (
        await requestToken(s.url, {
          grant_type: 'client_credentials',
          client_id: 'app-secret',
          client_secret: 'plain-secret',
        })
      ).status,
    ).toBe(200);
  });

  it.each([
    [
      'another RSA key than the registered one',
      { key: 'other-rsa' },
      /signature does not verify with the key registered/,
    ],
    ['another kind of key than the registered one', { key: 'stranger' }, /signature does not verify/],
    ['an expired assertion', { expInS: -120 }, /expired/],
    ['a wrong audience', { aud: 'https://elsewhere.example/token' }, /audience is not this token endpoint/],
    ['an iss that is not the client_id', { iss: 'app-ec' }, /iss is not the client_id/],
    ['a sub that is not the iss', { sub: 'someone-else' }, /sub claim/],
    ['an unregistered client', { iss: 'nobody', clientId: 'nobody' }, /no public key is registered/],
  ] as const)('refuses %s with invalid_client and says why', async (_name, change, why) => {
    const s = await server();
    const audience = `${s.url}/api/auth.token`;
    const claims: Claims = change;
    const key =
      claims.key === 'stranger'
        ? stranger.privateKey
        : claims.key === 'other-rsa'
          ? otherRsa.privateKey
          : rsa.privateKey;
    const jwt = await assertion(key, key === stranger.privateKey ? 'ES256' : 'RS256', audience, claims);
    const reply = await requestToken(s.url, form(claims.clientId ?? 'app-rsa', jwt));
    expect(reply.status).toBe(401);
    const body = reply.json as { status: string; error: string; error_description: string };
    expect(body).toMatchObject({ status: 'error', error: 'invalid_client' });
    expect(body.error_description).toMatch(why);
  });

  it('refuses a replayed assertion (the same jti twice)', async () => {
    const s = await server();
    const jwt = await assertion(rsa.privateKey, 'RS256', `${s.url}/api/auth.token`);
    expect((await requestToken(s.url, form('app-rsa', jwt))).status).toBe(200);
    const again = await requestToken(s.url, form('app-rsa', jwt));
    expect(again.status).toBe(401);
    expect((again.json as { error_description: string }).error_description).toMatch(/replayed/);
  });

  it('refuses an assertion beside a client secret, and a wrong assertion type', async () => {
    const s = await server();
    const jwt = await assertion(rsa.privateKey, 'RS256', `${s.url}/api/auth.token`);
    const both = await requestToken(s.url, { ...form('app-rsa', jwt), client_secret: 'x' });
    expect(both.status).toBe(400);
    const wrongType = await requestToken(s.url, { ...form('app-rsa', jwt), client_assertion_type: 'urn:example:saml' });
    expect(wrongType.status).toBe(401);
    expect((wrongType.json as { error_description: string }).error_description).toMatch(/client_assertion_type/);
  });

  it('says so when no client key is registered at all', async () => {
    const s = await startTestServer();
    const jwt = await assertion(rsa.privateKey, 'RS256', `${s.url}/api/auth.token`);
    const reply = await requestToken(s.url, form('client-1', jwt));
    expect(reply.status).toBe(401);
    expect((reply.json as { error_description: string }).error_description).toMatch(/no client keys are registered/);
  });
});
