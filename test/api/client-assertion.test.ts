/**
 * The client side of private_key_jwt: the assertion rpcload signs (RFC 7523 §3 claims, the key's
 * algorithm), the token request that carries it, and how the reference server's refusal reads.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  ASSERTION_LIFETIME_S,
  assertionAlgFor,
  assertionKeyObject,
  signClientAssertion,
  type AssertionKey,
} from '../../src/api/client-assertion.ts';
import { createDispatcher } from '../../src/api/undici-agents.ts';
import { requestToken } from '../../src/api/token.ts';
import { startTestServer } from '../support/server-helpers.ts';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const pemOf = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();
const spkiOf = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString();

const rsaKey: AssertionKey = { format: 'pem', text: pemOf(rsa.privateKey), alg: 'RS256', kid: null };
const ecJwk: AssertionKey = {
  format: 'jwk',
  text: JSON.stringify({ ...ec.privateKey.export({ format: 'jwk' }), kid: 'key-1' }),
  alg: 'ES256',
  kid: 'key-1',
};

describe('signClientAssertion', () => {
  it('signs iss = sub = the client, aud = the token endpoint, a unique jti and a short exp', async () => {
    const audience = 'https://api.example/api/auth.token';
    const first = await signClientAssertion(rsaKey, assertionKeyObject(rsaKey), { clientId: 'app-1', audience });
    const second = await signClientAssertion(rsaKey, assertionKeyObject(rsaKey), { clientId: 'app-1', audience });
    const { payload, protectedHeader } = await jwtVerify(first, rsa.publicKey, {
      audience,
      issuer: 'app-1',
      subject: 'app-1',
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(payload.exp! - payload.iat!).toBe(ASSERTION_LIFETIME_S);
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
    const { payload: other } = await jwtVerify(second, rsa.publicKey, { audience });
    expect(other.jti).not.toBe(payload.jti);
  });

  it('puts a JWK’s kid in the header and signs ES256 with a P-256 key', async () => {
    const jwt = await signClientAssertion(ecJwk, assertionKeyObject(ecJwk), {
      clientId: 'app-2',
      audience: 'https://x/api/t',
    });
    expect(decodeProtectedHeader(jwt)).toMatchObject({ alg: 'ES256', kid: 'key-1' });
    await expect(jwtVerify(jwt, ec.publicKey)).resolves.toBeDefined();
  });
});

describe('assertionAlgFor', () => {
  it.each([
    // the key's natural algorithm when none is asked for
    [rsa.privateKey, null, 'RS256'],
    [ec.privateKey, null, 'ES256'],
    // an RSA key signs PS256 too, when asked
    [rsa.privateKey, 'PS256', 'PS256'],
    // algorithms that do not fit the key are refused, saying what it signs
    [rsa.privateKey, 'ES256', /does not fit this rsa key \(it signs RS256 or PS256\)/],
    [ec.privateKey, 'RS256', /does not fit this ec key/],
    // a curve other than P-256 fits none of them
    [p384.privateKey, null, /secp384r1: expected an RSA or P-256 key/],
    // a public key is no signing key
    [rsa.publicKey, null, /not a private key/],
  ] as const)('%#: %s asked %s → %s', (key, wanted, expected) => {
    const alg = assertionAlgFor(key, wanted);
    if (typeof expected === 'string') expect(alg).toBe(expected);
    else expect((alg as { problem: string }).problem).toMatch(expected);
  });
});

describe('requestToken with private_key_jwt', () => {
  it('gets a token from a server that knows the public key, sending no secret', async () => {
    const server = await startTestServer({ clientKeys: [{ id: 'app-1', key: spkiOf(rsa.publicKey) }] });
    const dispatcher = createDispatcher();
    try {
      const result = await requestToken(dispatcher, {
        baseUrl: server.url,
        tokenMethod: 'auth.token',
        clientId: 'app-1',
        clientSecret: 'unused',
        clientAuth: 'private_key_jwt',
        assertionKey: rsaKey,
      });
      expect(result.ok).toBe(true);
    } finally {
      await dispatcher.close();
    }
  });

  it('reports the server’s reason when the key is not the registered one', async () => {
    const server = await startTestServer({ clientKeys: [{ id: 'app-1', key: spkiOf(rsa.publicKey) }] });
    const dispatcher = createDispatcher();
    try {
      const other: AssertionKey = {
        format: 'pem',
        text: pemOf(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
        alg: 'RS256',
        kid: null,
      };
      const result = await requestToken(dispatcher, {
        baseUrl: server.url,
        tokenMethod: 'auth.token',
        clientId: 'app-1',
        clientSecret: 'unused',
        clientAuth: 'private_key_jwt',
        assertionKey: other,
      });
      expect(result).toMatchObject({ ok: false, outcome: 'error:invalid_client', status: 401 });
      expect(!result.ok && result.detail).toMatch(/invalid_client — the client assertion signature does not verify/);
    } finally {
      await dispatcher.close();
    }
  });

  it('fails without sending anything when the client has no key', async () => {
    const dispatcher = createDispatcher();
    try {
      const result = await requestToken(dispatcher, {
        baseUrl: 'http://127.0.0.1:9',
        tokenMethod: 'auth.token',
        clientId: 'app-1',
        clientSecret: 'unused',
        clientAuth: 'private_key_jwt',
      });
      expect(result).toMatchObject({ ok: false, outcome: 'error:client_assertion', status: 0 });
    } finally {
      await dispatcher.close();
    }
  });
});
