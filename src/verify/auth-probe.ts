/**
 * One unauthenticated call of the probe method, as the auth checks see it. A request refused
 * for authentication spends no quota (the server cannot tell whose it would be), so these need
 * no client.
 */
import { parseWwwAuthenticate } from '../api/www-authenticate.ts';
import { excerptBody, sanitizeText } from '../util/sanitize.ts';
import type { CheckContext } from './check-context.ts';
import type { AuthObservation } from './verdicts/auth.ts';

export async function observeAuth(check: CheckContext, authorization: string | null): Promise<AuthObservation> {
  const { roundTrip, reply } = await check.call({
    method: check.config.methods[0]!,
    token: null,
    ...(authorization === null ? {} : { authorization }),
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
