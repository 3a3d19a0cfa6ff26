/**
 * The reference server's check of private_key_jwt client assertions (RFC 7523 §3, RFC 7521 §4.2):
 * the JWT must be signed by the key registered for its client (RS256, PS256 or ES256), name that
 * client as iss and sub (and match client_id when one is sent), name this token endpoint as its
 * audience, be unexpired, and carry a jti not seen before (a replayed assertion is refused). Each
 * refusal says why, in the error_description of the invalid_client answer.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { errors as JoseErrors } from 'jose';
import { ASSERTION_ALGS } from '../../api/client-assertion.ts';
import type { ClientPublicKey } from '../options.ts';

/** Assertion check result: the client it authenticates, or why it is refused (one line, no secrets). */
export type AssertionVerdict =
  { readonly ok: true; readonly clientId: string } | { readonly ok: false; readonly reason: string };

/** Allowed clock difference between client and server (s). */
const CLOCK_TOLERANCE_S = 5;
/** jtis remembered at most (the oldest are dropped first); each only until its assertion expires anyway. */
const MAX_REMEMBERED_JTIS = 100_000;

/** A client's public key object from its text: PEM (public key, certificate or private key) or a JWK as JSON. */
export function publicKeyOf(text: string): KeyObject {
  const trimmed = text.trimStart();
  return trimmed.startsWith('{')
    ? createPublicKey({ key: JSON.parse(trimmed) as JsonWebKey, format: 'jwk' })
    : createPublicKey(text);
}

/** Why a client's key text is unusable (one line), or null. */
export function publicKeyProblem(key: ClientPublicKey): string | null {
  try {
    publicKeyOf(key.key);
    return null;
  } catch (err) {
    return `clientKeys: the key of ${JSON.stringify(key.id)} is not a PEM or JWK key (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`;
  }
}

/** The registered public keys, the jtis already used, and the check itself. */
export class AssertionVerifier {
  readonly #keys: ReadonlyMap<string, KeyObject>;
  /** jti → its assertion's expiry (ms); insertion order is arrival order. */
  readonly #seen = new Map<string, number>();

  constructor(keys: readonly ClientPublicKey[]) {
    this.#keys = new Map(keys.map((k) => [k.id, publicKeyOf(k.key)]));
  }

  /**
   * Check `assertion` for a token request sent to `audience` (this token endpoint's URL);
   * `clientId` is the request's client_id parameter, if any.
   */
  async verify(assertion: string, clientId: string | null, audience: string, nowMs: number): Promise<AssertionVerdict> {
    // jose is loaded on the first assertion, not at start-up: most servers never see one.
    const { decodeJwt, errors, jwtVerify } = await import('jose');
    let claimed: string | undefined;
    try {
      const { iss } = decodeJwt(assertion);
      claimed = iss;
    } catch {
      return { ok: false, reason: 'the client assertion is not a JWT' };
    }
    if (claimed === undefined) return { ok: false, reason: 'the client assertion has no iss (the client id)' };
    if (clientId !== null && clientId !== claimed)
      return { ok: false, reason: 'the client assertion iss is not the client_id sent' };
    const key = this.#keys.get(claimed);
    if (key === undefined)
      return { ok: false, reason: `no public key is registered for client ${JSON.stringify(claimed.slice(0, 80))}` };
    let payload;
    try {
      ({ payload } = await jwtVerify(assertion, key, {
        algorithms: [...ASSERTION_ALGS],
        issuer: claimed,
        subject: claimed,
        audience,
        requiredClaims: ['exp', 'jti'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(nowMs),
      }));
    } catch (err) {
      return { ok: false, reason: refusalReason(err, audience, errors) };
    }
    this.#sweep(nowMs);
    const jti = payload.jti!;
    if (this.#seen.has(jti))
      return { ok: false, reason: 'the client assertion was replayed (its jti was used before)' };
    this.#seen.set(jti, (payload.exp! + CLOCK_TOLERANCE_S) * 1000);
    if (this.#seen.size > MAX_REMEMBERED_JTIS) this.#seen.delete(this.#seen.keys().next().value!);
    return { ok: true, clientId: claimed };
  }

  /** Forget jtis whose assertions have expired (they would be refused as expired anyway). */
  #sweep(nowMs: number): void {
    for (const [jti, expiresAtMs] of this.#seen) {
      if (expiresAtMs > nowMs) break; // roughly in expiry order: stop at the first live one
      this.#seen.delete(jti);
    }
  }
}

function refusalReason(err: unknown, audience: string, errors: typeof JoseErrors): string {
  if (err instanceof errors.JWTExpired) return 'the client assertion expired';
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return 'the client assertion signature does not verify with the key registered for the client';
  if (err instanceof errors.JOSEAlgNotAllowed)
    return 'the client assertion is signed with an algorithm other than RS256, PS256 or ES256';
  // An algorithm the registered key cannot verify (ES256 against an RSA key): another key signed it.
  if (err instanceof errors.JOSENotSupported)
    return 'the client assertion signature does not verify: it is signed for another kind of key than the one registered for the client';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return `the client assertion audience is not this token endpoint (${audience})`;
    return `the client assertion ${err.claim} claim is wrong or missing (${err.reason})`;
  }
  return 'the client assertion is not a valid signed JWT';
}
