import { describe, expect, it } from 'vitest';
import { advertisedLimits, rateLimitHeaderNotes } from '../../../src/verify/verdicts/rate-limit-headers.ts';
import {
  judgeResponse,
  type RefusalSample,
  type ResponseObservation,
} from '../../../src/verify/verdicts/ratelimit-response.ts';

const good: RefusalSample = {
  atMs: 12,
  status: 429,
  contentType: 'application/json',
  retryAfter: { form: 'delta', seconds: 10 },
  envelope: 'error',
  errorCode: 'rate_limit_exceeded',
  violations: [],
  bodyExcerpt: '{"status":"error","error":"rate_limit_exceeded"}',
};
const observe = (...refusals: RefusalSample[]): ResponseObservation => ({
  admittedBefore: 100,
  tooSlow: null,
  stop: 'refused',
  failedOutcome: null,
  refusals,
  headerNotes: [],
});

describe('judgeResponse', () => {
  it.each([
    // the conventions exactly
    ['conformant', observe(good, good, good), 'pass', /3 refusal\(s\): HTTP 429, Retry-After 10 s/],
    // no Retry-After header
    ['Retry-After missing', observe({ ...good, retryAfter: { form: 'missing' } }), 'fail', /no Retry-After header/],
    // an HTTP-date is legal HTTP but not what the conventions promise
    [
      'Retry-After as a date',
      observe({ ...good, retryAfter: { form: 'date', seconds: 9 } }),
      'fail',
      /HTTP-date; the conventions promise a number of seconds/,
    ],
    // garbage
    [
      'Retry-After invalid',
      observe({ ...good, retryAfter: { form: 'invalid', raw: 'soon' } }),
      'fail',
      /Retry-After "soon" is not a number of seconds/,
    ],
    // a text/plain 429
    [
      'no envelope',
      observe({
        ...good,
        contentType: 'text/plain',
        envelope: 'invalid',
        errorCode: null,
        violations: ['content-type is "text/plain", expected application/json', 'body is not JSON'],
        bodyExcerpt: 'Too Many Requests',
      }),
      'fail',
      /body is not \{"status":"error","error":"rate_limit_exceeded"\} \(content-type is "text\/plain".*"Too Many Requests"\)/,
    ],
    // the envelope with another code
    ['wrong code', observe({ ...good, errorCode: 'too_many' }), 'fail', /error envelope with error "too_many"/],
    // the right envelope as HTTP 503
    ['wrong status', observe({ ...good, status: 503 }), 'fail', /refused with HTTP 503, expected 429/],
    // never refused
    [
      'no refusal',
      { admittedBefore: 205, tooSlow: null, stop: 'cap', failedOutcome: null, refusals: [], headerNotes: [] },
      'fail',
      /no refusal after 205 requests/,
    ],
    // no refusal, but sending was slower than the limit: nothing proved
    [
      'too slow to tell',
      {
        admittedBefore: 25,
        tooSlow: 'the generator, not the server, is the bottleneck',
        stop: 'cap',
        failedOutcome: null,
        refusals: [],
        headerNotes: [],
      },
      'skip',
      /generator, not the server/,
    ],
    // the connection dropped before any refusal
    [
      'transport failure',
      {
        admittedBefore: 3,
        tooSlow: null,
        stop: 'failed',
        failedOutcome: 'transport:ECONNRESET',
        refusals: [],
        headerNotes: [],
      },
      'skip',
      /transport:ECONNRESET/,
    ],
  ] as const satisfies readonly (readonly [string, ResponseObservation, string, RegExp])[])(
    '%s',
    (_name, observation, verdict, detail) => {
      const result = judgeResponse(observation);
      expect(result.verdict).toBe(verdict);
      expect(result.detail).toMatch(detail);
    },
  );
});

describe('rate-limit headers (informational)', () => {
  it.each([
    // recent IETF draft: structured fields
    [
      'IETF structured',
      { 'ratelimit-policy': '"default";q=100;w=10', ratelimit: '"default";r=0;t=10' },
      { limit: 100, windowS: 10, remaining: 0, resetS: 10 },
    ],
    // earlier IETF drafts
    [
      'IETF draft 06',
      { 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '7', 'ratelimit-policy': '100;w=10' },
      { limit: 100, windowS: 10, remaining: 0, resetS: 7 },
    ],
    // the de-facto X- headers, reset as epoch seconds
    [
      'X-RateLimit with epoch reset',
      { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1700000008' },
      { limit: 100, windowS: null, remaining: 0, resetS: 8 },
    ],
    // none
    ['none', { 'content-type': 'application/json' }, null],
  ] as const)('advertisedLimits: %s', (_name, headers, expected) => {
    const found = advertisedLimits(headers, 1_700_000_000);
    if (expected === null) expect(found).toBeNull();
    else expect(found).toMatchObject(expected);
  });

  it('says which figures agree with what was observed', () => {
    const refusal = advertisedLimits(
      { 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '4' },
      0,
    );
    const lastAdmitted = advertisedLimits({ 'x-ratelimit-limit': '120', 'x-ratelimit-remaining': '20' }, 0);
    const notes = rateLimitHeaderNotes(lastAdmitted, refusal, 10, { limit: 100, windowMs: 10_000 }).join('\n');
    expect(notes).toMatch(/advertised limit 120 disagrees with the observed limit 100/);
    expect(notes).toMatch(/remaining 20 on the last admitted request disagrees/);
    expect(notes).toMatch(/remaining 0 on the refusal agrees/);
    expect(notes).toMatch(/advertised reset in 4 s disagrees with Retry-After 10/);
    expect(rateLimitHeaderNotes(null, null, 10, { limit: 100, windowMs: 10_000 })).toEqual([]);
  });
});
