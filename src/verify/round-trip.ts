/**
 * One round trip (a request and how it ended) as a rate-limit verdict sees it: a plain record with
 * times relative to the check's start. Verdicts are pure functions over arrays of these.
 */
import { headerValue, type ApiReply } from '../api/http-call.ts';
import { OUTCOME_RATE_LIMITED } from '../api/outcome.ts';
import { parseRetryAfter, type RetryAfter } from '../api/retry-after.ts';

export interface RoundTrip {
  readonly method: string;
  /** ms since the check started: request sent, response fully received. */
  readonly sentMs: number;
  readonly doneMs: number;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** Outcome key (success, error:<code>, http:<status>, envelope_violation, transport:<code>). */
  readonly outcome: string;
  readonly admission: Admission;
  /** Retry-After in seconds (delay-seconds or HTTP-date); null when absent or unusable. */
  readonly retryAfterS: number | null;
}

/**
 * - `refused`: the rate limit said no (HTTP 429, or the `rate_limit_exceeded` error code);
 * - `failed`: no verdict of the limiter is visible (no response, or our token was refused);
 * - `admitted`: anything else: the limiter let the request through to the method.
 */
export type Admission = 'admitted' | 'refused' | 'failed';

export function admissionOf(status: number, outcome: string): Admission {
  if (status === 0 || status === 401) return 'failed';
  if (status === 429 || outcome === OUTCOME_RATE_LIMITED) return 'refused';
  return 'admitted';
}

/** The reply's Retry-After, parsed (HTTP-date read against `epochMs`). */
export function retryAfterOf(reply: Pick<ApiReply, 'headers'>, epochMs: number): RetryAfter {
  return parseRetryAfter(reply.headers['retry-after'], epochMs);
}

export function toRoundTrip(reply: ApiReply, method: string, originMs: number, epochMs: number): RoundTrip {
  const outcome = reply.transportError ?? reply.classification?.outcome ?? `http:${reply.status}`;
  const retryAfter = retryAfterOf(reply, epochMs);
  return {
    method,
    sentMs: round(reply.sentAtMs - originMs),
    doneMs: round(reply.doneAtMs - originMs),
    status: reply.status,
    outcome,
    admission: admissionOf(reply.status, outcome),
    retryAfterS: retryAfter.form === 'delta' || retryAfter.form === 'date' ? retryAfter.seconds : null,
  };
}

/** The response's Content-Type (first value), for evidence. */
export function contentTypeOf(reply: Pick<ApiReply, 'headers'>): string | undefined {
  return headerValue(reply.headers, 'content-type');
}

/** Milliseconds with 0.1 ms precision: enough to order events, small in evidence. */
export function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
