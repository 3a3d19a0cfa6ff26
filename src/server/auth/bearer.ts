/** Bearer token authentication of API calls (RFC 6750) and the refusals it answers with. */
import { errorReply, type Reply } from '../reply.ts';
import type { TokenStore } from './token-store.ts';

/** `Bearer <b64token>` (RFC 6750 §2.1); the scheme name is case-insensitive (RFC 9110 §11.1). */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export type BearerResult =
  | { readonly ok: true; readonly clientId: string; readonly token: string }
  | { readonly ok: false; readonly reply: Reply };

/** The three RFC 6750 §3.1 refusals, built once per realm. */
export interface BearerRefusals {
  readonly missing: Reply;
  readonly malformed: Reply;
  readonly unknown: Reply;
  readonly expired: Reply;
}

export interface BearerFaults {
  /** `auth-403`: unknown or expired tokens get 403 without a challenge. */
  readonly forbidInsteadOfChallenge: boolean;
  /** `auth-no-challenge`: missing credentials get 401 without WWW-Authenticate. */
  readonly omitMissingChallenge: boolean;
}

export function bearerRefusals(realm: string, faults: BearerFaults): BearerRefusals {
  const challenge = `Bearer realm="${realm}"`;
  const invalidToken = (description: string): Reply =>
    faults.forbidInsteadOfChallenge
      ? errorReply(403, 'invalid_token')
      : errorReply(401, 'invalid_token', {
          'WWW-Authenticate': `${challenge}, error="invalid_token", error_description="${description}"`,
        });
  return {
    // No credentials at all: a bare challenge, no error attribute (RFC 6750 §3.1).
    missing: errorReply(
      401,
      'unauthorized',
      faults.omitMissingChallenge ? undefined : { 'WWW-Authenticate': challenge },
    ),
    malformed: errorReply(400, 'invalid_request', { 'WWW-Authenticate': `${challenge}, error="invalid_request"` }),
    unknown: invalidToken('The access token is unknown or was revoked'),
    expired: invalidToken('The access token expired'),
  };
}

/** Authenticate a request from its Authorization header. */
export function authenticateBearer(
  header: string | undefined,
  tokens: TokenStore,
  refusals: BearerRefusals,
  nowMs: number,
): BearerResult {
  if (header === undefined) return { ok: false, reply: refusals.missing };
  const token = BEARER_CREDENTIALS.exec(header)?.[1];
  if (token === undefined) return { ok: false, reply: refusals.malformed };
  const found = tokens.lookup(token, nowMs);
  if (!found.ok) return { ok: false, reply: found.reason === 'expired' ? refusals.expired : refusals.unknown };
  return { ok: true, clientId: found.clientId, token };
}
