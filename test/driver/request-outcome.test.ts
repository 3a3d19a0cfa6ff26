import { describe, expect, it } from 'vitest';
import { ResponseClassifier } from '../../src/api/envelope.ts';
import { RETRY_AFTER_ABSENT, RETRY_AFTER_UNUSABLE } from '../../src/api/retry-after.ts';
import {
  judgeRequest,
  newRequestOutcome,
  type FinishedRequest,
  type RequestOutcome,
} from '../../src/driver/request-outcome.ts';

const NOW_EPOCH_MS = Date.parse('2025-01-01T00:00:00Z');
const LIMITS = { requestTimeoutMs: 700, maxBodyBytes: 1_000_000 };
const JSON_TYPE = 'application/json';

/** A finished request: a 200 with a JSON success envelope unless `over` says otherwise. */
function finished(
  over: Partial<Omit<FinishedRequest, 'responseBody'>> & { body?: string | null } = {},
): FinishedRequest {
  const { body = '{"status":"success","data":{"pong":true}}', ...fields } = over;
  return {
    status: 200,
    contentType: JSON_TYPE,
    retryAfter: undefined,
    contentEncoding: undefined,
    truncated: false,
    error: null,
    cutReason: null,
    ...fields,
    responseBody: () => (body === null ? null : Buffer.from(body)),
  };
}

function errorWithCode(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

const RATE_LIMITED = '{"status":"error","error":"rate_limit_exceeded"}';

describe('judgeRequest', () => {
  it.each<[string, FinishedRequest, Partial<RequestOutcome>]>([
    // a success envelope: its data goes on to the iteration (pagination, later steps)
    [
      'success',
      finished(),
      { outcome: 'success', successData: { pong: true }, detail: '', retryAfterS: RETRY_AFTER_ABSENT },
    ],
    // an error envelope is an outcome, not a failure to describe
    [
      'error envelope',
      finished({ status: 404, body: '{"status":"error","error":"not_found"}' }),
      { outcome: 'error:not_found', detail: '' },
    ],
    // 429 with delay-seconds
    [
      '429 with Retry-After 7',
      finished({ status: 429, body: RATE_LIMITED, retryAfter: '7' }),
      { outcome: 'error:rate_limit_exceeded', retryAfterS: 7 },
    ],
    // 429 with an HTTP-date: seconds from the injected wall clock
    [
      '429 with an HTTP-date',
      finished({ status: 429, body: RATE_LIMITED, retryAfter: 'Wed, 01 Jan 2025 00:00:30 GMT' }),
      { outcome: 'error:rate_limit_exceeded', retryAfterS: 30 },
    ],
    // 429 without Retry-After, and with one nobody can follow
    ['429 without Retry-After', finished({ status: 429, body: RATE_LIMITED }), { retryAfterS: RETRY_AFTER_ABSENT }],
    [
      '429 with Retry-After "soon"',
      finished({ status: 429, body: RATE_LIMITED, retryAfter: 'soon' }),
      { retryAfterS: RETRY_AFTER_UNUSABLE },
    ],
    // Retry-After only means something on a 429
    [
      '503 with Retry-After',
      finished({ status: 503, body: '{"status":"error","error":"busy"}', retryAfter: '5' }),
      { retryAfterS: RETRY_AFTER_ABSENT },
    ],
    // a proxy's HTML page: http:<status>, with what was wrong
    [
      '502 HTML',
      finished({ status: 502, contentType: 'text/html', body: '<html>bad gateway</html>' }),
      {
        outcome: 'http:502',
        successData: null,
        detail: 'content-type is "text/html", expected application/json; body is not JSON',
      },
    ],
    // a 2xx that breaks the envelope
    [
      '200 without status',
      finished({ body: '{"data":{}}' }),
      { outcome: 'envelope_violation', detail: '"status" is missing, expected "success" or "error"' },
    ],
    [
      '200 cut at the read cap',
      finished({ truncated: true }),
      { outcome: 'envelope_violation', detail: 'body exceeds the read cap' },
    ],
    // no reply: undici's code names the outcome, the message is the detail
    [
      'connection reset',
      finished({ status: 0, error: errorWithCode('ECONNRESET', 'socket hang up'), body: null }),
      { outcome: 'transport:ECONNRESET', detail: 'socket hang up', successData: null },
    ],
    // cut short by rpcload: the reason wins over the abort error undici reports for it
    [
      'deadline passed',
      finished({ status: 200, cutReason: 'timeout', error: new Error('rpcload cut the request short: timeout') }),
      { outcome: 'transport:timeout', detail: 'no complete reply within 700 ms', successData: null },
    ],
    [
      'body too large',
      finished({ cutReason: 'body_too_large', error: new Error('aborted') }),
      { outcome: 'transport:body_too_large', detail: 'reply body over 1000000 bytes' },
    ],
  ])('%s', (_name, request, expected) => {
    const outcome = judgeRequest(request, LIMITS, new ResponseClassifier(), () => NOW_EPOCH_MS, newRequestOutcome());
    expect(outcome).toMatchObject(expected);
  });

  it('refills the record it is given: nothing of the previous request survives', () => {
    const into = newRequestOutcome();
    const classifier = new ResponseClassifier();
    judgeRequest(
      finished({ status: 429, body: RATE_LIMITED, retryAfter: '3' }),
      LIMITS,
      classifier,
      () => NOW_EPOCH_MS,
      into,
    );
    const again = judgeRequest(finished(), LIMITS, classifier, () => NOW_EPOCH_MS, into);
    expect(again).toBe(into);
    expect(again).toEqual({
      outcome: 'success',
      successData: { pong: true },
      retryAfterS: RETRY_AFTER_ABSENT,
      detail: '',
    });
  });

  it('reads the wall clock only for a 429', () => {
    let reads = 0;
    const clock = (): number => (reads++, NOW_EPOCH_MS);
    judgeRequest(finished(), LIMITS, new ResponseClassifier(), clock, newRequestOutcome());
    expect(reads).toBe(0);
    judgeRequest(
      finished({ status: 429, body: RATE_LIMITED, retryAfter: '1' }),
      LIMITS,
      new ResponseClassifier(),
      clock,
      newRequestOutcome(),
    );
    expect(reads).toBe(1);
  });
});
