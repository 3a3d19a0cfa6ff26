/**
 * The outcome vocabulary. Every request ends in exactly one outcome key:
 * - `success`                 a valid success envelope
 * - `error:<code>`            a valid error envelope (e.g. error:rate_limit_exceeded)
 * - `http:<status>`           a non-2xx reply whose body is not an envelope (e.g. an nginx 502 page)
 * - `envelope_violation`      a 2xx reply whose body breaks the envelope rules
 * - `content_encoding:<coding>` a reply whose body is compressed (e.g. gzip): rpcload sends no
 *                             Accept-Encoding and does not decode it, so it cannot judge the envelope
 * - `transport:<code>`        no usable response: reset, refused, timeout, TLS (the HTTP client's or the system's err.code)
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
  // Node's own http client (the token requests', node-transport.ts) says the same with its parser's code.
  HPE_HEADER_OVERFLOW: OUTCOME_HEADERS_TOO_LARGE,
  UND_ERR_RES_EXCEEDED_MAX_SIZE: OUTCOME_BODY_TOO_LARGE,
  // A status line or header block that is not HTTP/1.1 (undici's parser errors carry no code).
  HTTPParserError: OUTCOME_INVALID_HTTP,
};

/**
 * Outcome key of a failed request: a named outcome for timeouts, oversized replies and replies
 * that are not HTTP; otherwise undici's stable `code` (e.g. transport:UND_ERR_SOCKET) or the
 * system's (transport:ECONNREFUSED).
 */
export function transportOutcome(err: unknown): string {
  const { code, name } = (err ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && code.length > 0) {
    const named = NAMED_TRANSPORT[code];
    if (named !== undefined) return named;
    return code.startsWith('HPE_') ? OUTCOME_INVALID_HTTP : `transport:${code}`;
  }
  if (typeof name === 'string' && NAMED_TRANSPORT[name] !== undefined) return NAMED_TRANSPORT[name];
  return 'transport:UNKNOWN';
}

/** A content coding as an outcome key part: lower case, no spaces; an odd one is `other` (no unbounded keys). */
const SAFE_CODING = /^[a-z0-9._,-]{1,40}$/;

/**
 * The `content_encoding:<coding>` outcome of a reply whose body is encoded, or null when it is not
 * (no Content-Encoding, empty, or `identity`).
 */
export function contentEncodingOutcome(contentEncoding: string | undefined): string | null {
  if (contentEncoding === undefined) return null;
  const coding = contentEncoding.toLowerCase().replace(/\s+/g, '');
  if (coding === '' || coding === 'identity') return null;
  return `content_encoding:${SAFE_CODING.test(coding) ? coding : 'other'}`;
}

const CONTENT_LENGTH_MISMATCH = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';

/**
 * The error of an exchange that failed before its response head was complete. undici reports any
 * parse error met after a Content-Length header — a control character in a later header, or in
 * the Content-Length value itself — as a content-length mismatch (its parser's error path checks
 * the length first). Before the head is complete no body byte was read, so such a "mismatch" is an
 * invalid header block, and is named so (an HTTPParserError: `transport:invalid_http`).
 */
export function headerBlockError(err: Error): Error {
  if ((err as { code?: unknown }).code !== CONTENT_LENGTH_MISMATCH) return err;
  const named = new Error(
    'Response does not match the HTTP/1.1 protocol (invalid character in a response header, e.g. a control character)',
  );
  named.name = 'HTTPParserError';
  return named;
}
