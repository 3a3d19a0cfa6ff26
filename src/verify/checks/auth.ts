/**
 * The `auth.missing_token` and `auth.invalid_token` checks: one call of the probe method each,
 * without an Authorization header and with a well-formed bearer token no server issued. A request
 * refused for authentication spends no quota (the server cannot tell whose it would be), so these
 * need no client.
 */
import { randomBytes } from 'node:crypto';
import { parseWwwAuthenticate } from '../../api/www-authenticate.ts';
import { excerptBody, sanitizeText } from '../../util/sanitize.ts';
import type { CheckDefinition } from '../check.ts';
import type { CheckContext } from '../check-context.ts';
import { judgeInvalidToken, judgeMissingToken, type AuthObservation } from '../verdicts/auth.ts';

/** One unauthenticated call of the probe method, as the auth checks see it. */
async function observeAuth(check: CheckContext, authorization: string | null): Promise<AuthObservation> {
  const { roundTrip, reply } = await check.call({
    method: check.config.methods[0]!,
    token: null,
    authorization: authorization ?? undefined,
  });
  const header = reply.headers['www-authenticate'];
  const raw = header === undefined ? null : Array.isArray(header) ? header.join(', ') : header;
  return {
    status: roundTrip.status,
    outcome: roundTrip.outcome,
    challenges: parseWwwAuthenticate(header),
    wwwAuthenticate: raw === null ? null : sanitizeText(raw, 200),
    bodyExcerpt: excerptBody(reply.body, 120),
  };
}

export const authMissingToken: CheckDefinition = {
  id: 'auth.missing_token',
  plan: () => ({ needs: [], countsQuota: false, estimateMs: 50 }),
  run: async (check) => judgeMissingToken(await observeAuth(check, null)),
};

export const authInvalidToken: CheckDefinition = {
  id: 'auth.invalid_token',
  plan: () => ({ needs: [], countsQuota: false, estimateMs: 50 }),
  // A well-formed bearer token (RFC 6750 b64token) that no server issued.
  run: async (check) =>
    judgeInvalidToken(await observeAuth(check, `Bearer rpcload-unknown-${randomBytes(16).toString('base64url')}`)),
};
