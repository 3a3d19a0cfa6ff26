import { describe, expect, it } from 'vitest';
import { parseWwwAuthenticate } from '../../../src/api/www-authenticate.ts';
import { judgeInvalidToken, judgeMissingToken, type AuthObservation } from '../../../src/verify/verdicts/auth.ts';

const observe = (status: number, header: string | null, outcome = 'error:unauthorized'): AuthObservation => ({
  status,
  outcome,
  challenges: parseWwwAuthenticate(header ?? undefined),
  wwwAuthenticate: header,
  bodyExcerpt: '{"status":"error","error":"unauthorized"}',
});

describe('auth verdicts', () => {
  it.each([
    // RFC 6750 §3.1: a bare challenge
    ['challenge', observe(401, 'Bearer realm="api"'), 'pass', /^401 with WWW-Authenticate: Bearer realm="api"$/],
    // 401 without a challenge
    ['no challenge', observe(401, null), 'fail', /got 401 but no WWW-Authenticate header/],
    // another scheme only
    [
      'Basic only',
      observe(401, 'Basic realm="api"'),
      'fail',
      /without a challenge of scheme Bearer \(basic realm="api"\)/,
    ],
    // 403
    [
      '403',
      observe(403, null, 'error:forbidden'),
      'fail',
      /got HTTP 403 \(error:forbidden\) and no WWW-Authenticate header; expected 401/,
    ],
    // no response
    ['unreachable', observe(0, null, 'transport:ECONNRESET'), 'skip', /no response/],
  ] as const)('missing token: %s', (_name, observation, verdict, detail) => {
    const result = judgeMissingToken(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('notes an error code on a request that had no credentials', () => {
    expect(judgeMissingToken(observe(401, 'Bearer realm="api", error="invalid_token"')).notes?.[0]).toMatch(
      /should get none/,
    );
  });

  it.each([
    // RFC 6750 §3.1 invalid_token
    [
      'invalid_token',
      observe(401, 'Bearer realm="api", error="invalid_token", error_description="unknown"'),
      'pass',
      /error="invalid_token"/,
    ],
    // a challenge without the error
    [
      'no error attribute',
      observe(401, 'Bearer realm="api"'),
      'fail',
      /but no error attribute; expected error="invalid_token"/,
    ],
    // the wrong error
    ['invalid_request', observe(401, 'Bearer error="invalid_request"'), 'fail', /but error="invalid_request"/],
    // 403 without challenge (the auth-403 fault)
    ['403', observe(403, null, 'error:invalid_token'), 'fail', /got HTTP 403/],
  ] as const)('invalid token: %s', (_name, observation, verdict, detail) => {
    const result = judgeInvalidToken(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });
});
