/**
 * `auth.missing_token` and `auth.invalid_token` (RFC 6750 §3.1): a request without credentials
 * gets 401 with a `Bearer` challenge; one with an unknown token gets 401 with a `Bearer`
 * challenge carrying `error="invalid_token"`.
 */
import type { Challenge } from '../../api/www-authenticate.ts';
import { fail, pass, skip, type Verdict } from '../verdict.ts';

export interface AuthObservation {
  readonly status: number;
  readonly outcome: string;
  readonly challenges: readonly Challenge[];
  /** The WWW-Authenticate header as sent (sanitized); null when absent. */
  readonly wwwAuthenticate: string | null;
  readonly bodyExcerpt: string;
}

/** A parsed challenge written back as the header would say it: `Bearer realm="api", error="invalid_token"`. */
export function describeChallenge(challenge: Challenge): string {
  const scheme = challenge.scheme === 'bearer' ? 'Bearer' : challenge.scheme;
  const params = Object.entries(challenge.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return params.length > 0 ? `${scheme} ${params.join(', ')}` : scheme;
}

function evidenceOf(obs: AuthObservation): Record<string, unknown> {
  return {
    status: obs.status,
    outcome: obs.outcome,
    challenges: obs.challenges.map((c) => ({ scheme: c.scheme, params: c.params })),
    // The raw header only when it could not be parsed.
    ...(obs.challenges.length === 0 && obs.wwwAuthenticate !== null ? { wwwAuthenticate: obs.wwwAuthenticate } : {}),
    body: obs.bodyExcerpt,
  };
}

function bearerOf(obs: AuthObservation): Challenge | undefined {
  return obs.challenges.find((c) => c.scheme === 'bearer');
}

/** Common part: a response arrived, HTTP 401, a Bearer challenge. Returns the failure, or the challenge. */
function bearer401(obs: AuthObservation, what: string): Verdict | Challenge {
  const evidence = evidenceOf(obs);
  if (obs.status === 0) return skip('target_broken', `no response to ${what} (${obs.outcome})`, evidence);
  const challenge = bearerOf(obs);
  const others = obs.challenges.map(describeChallenge).join('; ') || 'unparseable';
  const header =
    obs.wwwAuthenticate === null
      ? 'no WWW-Authenticate header'
      : challenge === undefined
        ? `WWW-Authenticate without a challenge of scheme Bearer (${others})`
        : null;
  if (obs.status !== 401)
    return fail(
      `${what} got HTTP ${obs.status} (${obs.outcome})${header ? ` and ${header}` : ''}; expected 401 with WWW-Authenticate: Bearer`,
      evidence,
    );
  if (challenge === undefined)
    return fail(`${what} got 401 but ${header}; expected WWW-Authenticate: Bearer (RFC 6750 §3.1)`, evidence);
  return challenge;
}

export function judgeMissingToken(obs: AuthObservation): Verdict {
  const challenge = bearer401(obs, 'a request without Authorization');
  if (!('scheme' in challenge)) return challenge;
  const notes = challenge.params.error
    ? [
        `the challenge carries error="${challenge.params.error}"; RFC 6750 §3.1 says a request without credentials should get none`,
      ]
    : [];
  return pass(`401 with WWW-Authenticate: ${describeChallenge(challenge)}`, evidenceOf(obs), notes);
}

export function judgeInvalidToken(obs: AuthObservation): Verdict {
  const challenge = bearer401(obs, 'a request with an unknown token');
  if (!('scheme' in challenge)) return challenge;
  const error = challenge.params.error;
  if (error !== 'invalid_token') {
    return fail(
      `401 with WWW-Authenticate: ${describeChallenge(challenge)}, but ${error === undefined ? 'no error attribute' : `error="${error}"`}; expected error="invalid_token" (RFC 6750 §3.1)`,
      evidenceOf(obs),
    );
  }
  return pass(`401 with WWW-Authenticate: ${describeChallenge(challenge)}`, evidenceOf(obs));
}
