/**
 * The outcome vocabulary. Every request ends in exactly one outcome key:
 * - `success`                 a valid success envelope
 * - `error:<code>`            a valid error envelope (e.g. error:rate_limit_exceeded)
 * - `http:<status>`           a non-2xx reply whose body is not an envelope (e.g. an nginx 502 page)
 * - `envelope_violation`      a 2xx reply whose body breaks the envelope rules
 * - `transport:<code>`        no usable response: reset, refused, timeout, TLS (undici's err.code)
 * - `sign:error`              the profile's sign function failed, so the request was never sent
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

/** Named transport outcomes rpcload gives itself, where undici's code would be vague or missing. */
export const OUTCOME_TIMEOUT = 'transport:timeout';
export const OUTCOME_BODY_TOO_LARGE = 'transport:body_too_large';
export const OUTCOME_HEADERS_TOO_LARGE = 'transport:headers_too_large';
export const OUTCOME_INVALID_HTTP = 'transport:invalid_http';
/** A request that was sent and never answered before the run's bounded drain ended. */
export const OUTCOME_UNANSWERED = 'transport:unanswered';
/** The profile's sign function threw or returned no headers object: the request was not sent. */
export const OUTCOME_SIGN_ERROR = 'sign:error';

/** undici codes (and error names, for errors without a code) that have a plainer name. */
const NAMED_TRANSPORT: Readonly<Record<string, string>> = {
  UND_ERR_HEADERS_TIMEOUT: OUTCOME_TIMEOUT,
  UND_ERR_BODY_TIMEOUT: OUTCOME_TIMEOUT,
  TimeoutError: OUTCOME_TIMEOUT,
  UND_ERR_HEADERS_OVERFLOW: OUTCOME_HEADERS_TOO_LARGE,
  UND_ERR_RES_EXCEEDED_MAX_SIZE: OUTCOME_BODY_TOO_LARGE,
  // A status line or header block that is not HTTP/1.1 (undici's parser errors carry no code).
  HTTPParserError: OUTCOME_INVALID_HTTP,
};

/**
 * Outcome key of a failed exchange: a named outcome for timeouts, oversized replies and replies
 * that are not HTTP; otherwise undici's stable `code` (e.g. transport:UND_ERR_SOCKET) or the
 * system's (transport:ECONNREFUSED).
 */
export function transportOutcome(err: unknown): string {
  const { code, name } = (err ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && code.length > 0) {
    if (code.startsWith('HPE_')) return OUTCOME_INVALID_HTTP;
    return NAMED_TRANSPORT[code] ?? `transport:${code}`;
  }
  if (typeof name === 'string' && NAMED_TRANSPORT[name] !== undefined) return NAMED_TRANSPORT[name];
  return 'transport:UNKNOWN';
}
