/**
 * The outcome vocabulary. Every request ends in exactly one outcome key:
 * - `success`                 a valid success envelope
 * - `error:<code>`            a valid error envelope (e.g. error:rate_limit_exceeded)
 * - `http:<status>`           a non-2xx reply whose body is not an envelope (e.g. an nginx 502 page)
 * - `envelope_violation`      a 2xx reply whose body breaks the envelope rules
 * - `transport:<code>`        no usable response: reset, refused, timeout, TLS (undici's err.code)
 */
export const OUTCOME_SUCCESS = 'success';
export const OUTCOME_ENVELOPE_VIOLATION = 'envelope_violation';
export const OUTCOME_RATE_LIMITED = 'error:rate_limit_exceeded';

export type OutcomeClass = 'success' | 'rate_limited' | 'error';

/**
 * The three-way split used by the timeline, thresholds and views, decided by the key alone so a
 * live view and a result file can never disagree. A 429 is rate-limited when it says so (the
 * envelope code) or carries no envelope at all; a 429 with another error code is an error.
 */
export function outcomeClass(outcome: string): OutcomeClass {
  if (outcome === OUTCOME_SUCCESS) return 'success';
  if (outcome === OUTCOME_RATE_LIMITED || outcome === 'http:429') return 'rate_limited';
  return 'error';
}

/** Outcome key of a failed exchange; undici errors carry a stable `code` like UND_ERR_SOCKET. */
export function transportOutcome(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return `transport:${typeof code === 'string' && code.length > 0 ? code : 'UNKNOWN'}`;
}
