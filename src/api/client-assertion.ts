/**
 * private_key_jwt client authentication (OpenID Connect Core §9, RFC 7523 §2.2 and §3, RFC 7521
 * §4.2): the token request carries a short-lived JWT the client signed with its private key —
 * iss = sub = the client id, aud = the token endpoint's URL, a unique jti, iat and a short exp —
 * instead of a client secret. The JWT is built and signed by `jose`.
 */
// node:crypto loads at the first key read (process.getBuiltinModule): the profile schema reads this
// module's constants at every CLI start, which would otherwise pay ~8 ms to load it.
import type { JsonWebKey, KeyObject } from 'node:crypto';

/** The `client_assertion_type` of a JWT client assertion (RFC 7523 §2.2). */
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Signature algorithms rpcload signs assertions with. */
export const ASSERTION_ALGS = ['RS256', 'PS256', 'ES256'] as const;
export type AssertionAlg = (typeof ASSERTION_ALGS)[number];

/** How long an assertion is valid after it is made (s): long enough for the request, short enough to be useless later. */
export const ASSERTION_LIFETIME_S = 60;

/**
 * A client's signing key as plain data (it crosses worker boundaries): the key text — PEM
 * (PKCS#8, PKCS#1 or SEC1) or a private JWK as JSON — the algorithm, and the key id put in the
 * JWT header (a JWK's `kid`). A secret: never written anywhere.
 */
export interface AssertionKey {
  readonly format: 'pem' | 'jwk';
  readonly text: string;
  readonly alg: AssertionAlg;
  readonly kid: string | null;
}

/** The private key object of `key` (throws on a key node:crypto cannot read). */
export function assertionKeyObject(key: Pick<AssertionKey, 'format' | 'text'>): KeyObject {
  const { createPrivateKey } = process.getBuiltinModule('node:crypto');
  return key.format === 'pem'
    ? createPrivateKey(key.text)
    : createPrivateKey({ key: JSON.parse(key.text) as JsonWebKey, format: 'jwk' });
}

/**
 * The algorithm a key signs with: `wanted` when it fits the key (RS256 and PS256 for RSA keys,
 * ES256 for P-256 keys), else the key's natural one; a reason (one line) when the key fits none.
 */
export function assertionAlgFor(
  key: KeyObject,
  wanted: AssertionAlg | null,
): AssertionAlg | { readonly problem: string } {
  const type = key.asymmetricKeyType;
  if (key.type !== 'private') return { problem: 'not a private key' };
  const fits: readonly AssertionAlg[] =
    type === 'rsa'
      ? ['RS256', 'PS256']
      : type === 'rsa-pss'
        ? ['PS256']
        : type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
          ? ['ES256']
          : [];
  if (fits.length === 0)
    return {
      problem: `a ${type ?? 'unknown'} key${type === 'ec' ? ` on ${key.asymmetricKeyDetails?.namedCurve ?? 'an unknown curve'}` : ''}: expected an RSA or P-256 key (RS256, PS256, ES256)`,
    };
  if (wanted === null) return fits[0]!;
  return fits.includes(wanted)
    ? wanted
    : { problem: `${wanted} does not fit this ${type} key (it signs ${fits.join(' or ')})` };
}

export interface AssertionClaims {
  readonly clientId: string;
  /** The token endpoint's URL. */
  readonly audience: string;
  /** Seconds since the epoch; default now. */
  readonly nowS?: number;
  /** Default ASSERTION_LIFETIME_S. */
  readonly lifetimeS?: number;
}

/** A signed client assertion (compact JWS) for one token request. */
export async function signClientAssertion(
  key: AssertionKey,
  keyObject: KeyObject,
  claims: AssertionClaims,
): Promise<string> {
  // jose is loaded with the first assertion, not at start-up: most runs never sign one.
  const { SignJWT } = await import('jose');
  const nowS = claims.nowS ?? Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid === null ? {} : { kid: key.kid }) })
    .setIssuer(claims.clientId)
    .setSubject(claims.clientId)
    .setAudience(claims.audience)
    .setJti(process.getBuiltinModule('node:crypto').randomUUID())
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + (claims.lifetimeS ?? ASSERTION_LIFETIME_S))
    .sign(keyObject);
}

/** The token endpoint URL an assertion names as its audience: where the token request is sent. */
export function tokenEndpointUrl(baseUrl: string, tokenMethod: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/${tokenMethod}`;
}
