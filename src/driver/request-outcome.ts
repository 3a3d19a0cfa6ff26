/**
 * What a finished request came to: its outcome key, the reply's `data` when it succeeded, the
 * state of its Retry-After, and a short detail for failures. A pure function of what the request
 * saw (status, the two headers read, body, transport error, or why rpcload cut it short) and the
 * run's limits, so each case is a row of a table test; the engine acts on the answer (back-off,
 * token refresh, the iteration's next request) and records it.
 */
import type { ResponseClassifier } from '../api/envelope.ts';
import { OUTCOME_BODY_TOO_LARGE, OUTCOME_SIGN_ERROR, OUTCOME_TIMEOUT, transportOutcome } from '../api/outcome.ts';
import { SignError } from '../api/request-signer.ts';
import { RETRY_AFTER_ABSENT, retryAfterSeconds } from '../api/retry-after.ts';
import { sanitizeText } from '../util/sanitize.ts';

/** Why rpcload cut a request short itself: its deadline passed, or its reply body grew too long. */
export type CutReason = 'timeout' | 'body_too_large';

/** What a request saw by its end (an InFlightRequest is one). */
export interface FinishedRequest {
  /** HTTP status of the final response; 0 when none arrived. */
  readonly status: number;
  readonly contentType: string | undefined;
  /** The Retry-After header of a 429, as sent (an array when it came more than once). */
  readonly retryAfter: string | string[] | undefined;
  /** Content-Encoding of the reply, when it had one (a compressed body is not read as JSON). */
  readonly contentEncoding: string | undefined;
  /** The body went past the bytes kept for parsing. */
  readonly truncated: boolean;
  /** The transport's error, when the request failed (undici's, with its `code`). */
  readonly error: Error | null;
  readonly cutReason: CutReason | null;
  /** The body up to the bytes kept for parsing; null when there was none. */
  responseBody(): Buffer | null;
}

/** The answer; the engine keeps one and has it refilled per request (the hot path allocates none). */
export interface RequestOutcome {
  /** success | error:<code> | http:<status> | transport:<code> | envelope_violation (api/outcome.ts). */
  outcome: string;
  /** The success envelope's `data`; null for every other outcome. */
  successData: Readonly<Record<string, unknown>> | null;
  /** Retry-After of a 429 in seconds, or RETRY_AFTER_ABSENT / RETRY_AFTER_UNUSABLE (api/retry-after.ts). */
  retryAfterS: number;
  /** Why it failed, in a few sanitized words; '' for a success. */
  detail: string;
}

export function newRequestOutcome(): RequestOutcome {
  return { outcome: '', successData: null, retryAfterS: RETRY_AFTER_ABSENT, detail: '' };
}

/** The run's limits a request can be cut short by (named in the detail). */
export interface RequestLimits {
  readonly requestTimeoutMs: number;
  readonly maxBodyBytes: number;
}

/**
 * Judge `request` into `into` and return it. `classifier` is the engine's envelope classifier (a
 * pure function with a memory of the last reply); `epochNowMs` reads the wall clock, asked only
 * for a 429 whose Retry-After may be an HTTP-date.
 */
export function judgeRequest(
  request: FinishedRequest,
  limits: RequestLimits,
  classifier: ResponseClassifier,
  epochNowMs: () => number,
  into: RequestOutcome,
): RequestOutcome {
  into.successData = null;
  into.retryAfterS = RETRY_AFTER_ABSENT;
  into.detail = '';
  if (request.cutReason === 'timeout') {
    into.outcome = OUTCOME_TIMEOUT;
    into.detail = `no complete reply within ${limits.requestTimeoutMs} ms`;
  } else if (request.cutReason === 'body_too_large') {
    into.outcome = OUTCOME_BODY_TOO_LARGE;
    into.detail = `reply body over ${limits.maxBodyBytes} bytes`;
  } else if (request.error instanceof SignError) {
    into.outcome = OUTCOME_SIGN_ERROR;
    into.detail = sanitizeText(request.error.message, 160);
  } else if (request.error !== null) {
    into.outcome = transportOutcome(request.error);
    into.detail = sanitizeText(request.error.message, 120);
  } else {
    const classification = classifier.classify(
      request.status,
      request.contentType,
      request.responseBody(),
      request.truncated,
      request.contentEncoding,
    );
    into.outcome = classification.outcome;
    if (classification.kind === 'success') into.successData = classification.data;
    else if (classification.kind === 'invalid') into.detail = classification.violations.join('; ');
    if (request.status === 429) into.retryAfterS = retryAfterSeconds(request.retryAfter, epochNowMs());
  }
  return into;
}
