/**
 * Envelope classification: turns one HTTP reply into an outcome key and the envelope's parts.
 * Runs once per response on the load hot path, so the common cases take no regex and no copies.
 */
import { redactText, secretsGeneration } from '../util/redact.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { contentEncodingOutcome, OUTCOME_ENVELOPE_VIOLATION, OUTCOME_SUCCESS } from './outcome.ts';

export interface Classification {
  /** success | error:<code> | http:<status> | envelope_violation | content_encoding:<coding> (see outcome.ts). */
  readonly outcome: string;
  readonly kind: 'success' | 'error' | 'invalid';
  /** The success envelope's `data`; null otherwise. */
  readonly data: Readonly<Record<string, unknown>> | null;
  /** The error envelope's code (normalized for use as a key); null otherwise. */
  readonly errorCode: string | null;
  /** Envelope rules this reply breaks (empty when it follows them all). */
  readonly violations: readonly string[];
}

const NO_VIOLATIONS: readonly string[] = Object.freeze([]);
const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** application/json or any application/*+json, with optional parameters. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  if (contentType === 'application/json' || contentType === 'application/json; charset=utf-8') return true; // the usual spellings, without copies
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'));
}

/** Codes seen since the last secret was registered → their key (error codes repeat: the hot path pays one lookup). */
const normalizedCodes = new Map<string, string>();
const MAX_CACHED_CODES = 1024;
let cachedGeneration = -1;

/**
 * Error codes become outcome keys, so a hostile server must not be able to inject escape
 * sequences, unbounded variety or an echoed secret or token through them: known secrets are
 * redacted first (before characters are replaced, which would hide them), then safe codes are
 * kept and the rest scrubbed and capped.
 */
export function normalizeErrorCode(code: string): string {
  if (cachedGeneration !== secretsGeneration()) {
    normalizedCodes.clear();
    cachedGeneration = secretsGeneration();
  }
  const cached = normalizedCodes.get(code);
  if (cached !== undefined) return cached;
  const redacted = redactText(code);
  const scrubbed = SAFE_CODE.test(redacted) ? redacted : sanitizeText(redacted, 64).replace(/[^A-Za-z0-9_.:-]/g, '_');
  const key = scrubbed.length > 0 ? scrubbed : 'empty';
  if (normalizedCodes.size < MAX_CACHED_CODES) normalizedCodes.set(code, key);
  return key;
}

function invalid(statusCode: number, violations: string[]): Classification {
  const outcome = statusCode >= 200 && statusCode < 300 ? OUTCOME_ENVELOPE_VIOLATION : `http:${statusCode}`;
  return { outcome, kind: 'invalid', data: null, errorCode: null, violations };
}

function parseObject(body: Buffer): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return 'body is not JSON';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'body is not a JSON object';
  return parsed as Record<string, unknown>;
}

/**
 * Classify a reply. A valid envelope keeps its outcome even when only its Content-Type is wrong
 * (that is reported as a violation); a structurally broken body is `envelope_violation` on 2xx
 * and `http:<status>` otherwise (e.g. a proxy's HTML error page). An encoded body (Content-Encoding
 * gzip, br, …) is not read at all: `content_encoding:<coding>`.
 */
export function classifyResponse(
  statusCode: number,
  contentType: string | undefined,
  body: Buffer | null,
  truncated: boolean,
  contentEncoding?: string,
): Classification {
  const encoded = contentEncodingOutcome(contentEncoding);
  if (encoded !== null) {
    const coding = sanitizeText(contentEncoding!, 40);
    const why = `body is encoded with Content-Encoding ${coding}, which rpcload does not decode (it sends no Accept-Encoding)`;
    return { outcome: encoded, kind: 'invalid', data: null, errorCode: null, violations: [why] };
  }
  const violations: string[] = [];
  if (!isJsonContentType(contentType)) {
    violations.push(
      `content-type is ${contentType === undefined ? 'missing' : JSON.stringify(sanitizeText(contentType, 60))}, expected application/json`,
    );
  }
  if (truncated) return invalid(statusCode, [...violations, 'body exceeds the read cap']);
  if (body === null || body.length === 0) return invalid(statusCode, [...violations, 'body is empty']);
  const envelope = parseObject(body);
  if (typeof envelope === 'string') return invalid(statusCode, [...violations, envelope]);

  const status = envelope.status;
  if (status === 'success') {
    const data = envelope.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data))
      return invalid(statusCode, [...violations, 'success envelope without an object "data"']);
    if (statusCode < 200 || statusCode >= 300) violations.push(`success envelope with HTTP ${statusCode}`);
    return {
      outcome: OUTCOME_SUCCESS,
      kind: 'success',
      data: data as Record<string, unknown>,
      errorCode: null,
      violations: violations.length === 0 ? NO_VIOLATIONS : violations,
    };
  }
  if (status === 'error') {
    const code = envelope.error;
    if (typeof code !== 'string' || code.length === 0)
      return invalid(statusCode, [...violations, 'error envelope without a string "error"']);
    if (statusCode >= 200 && statusCode < 300) violations.push(`error envelope with HTTP ${statusCode}`);
    const errorCode = normalizeErrorCode(code);
    return {
      outcome: `error:${errorCode}`,
      kind: 'error',
      data: null,
      errorCode,
      violations: violations.length === 0 ? NO_VIOLATIONS : violations,
    };
  }
  const found =
    status === undefined ? 'missing' : JSON.stringify(typeof status === 'string' ? sanitizeText(status, 40) : status);
  return invalid(statusCode, [...violations, `"status" is ${found}, expected "success" or "error"`]);
}

/** Replies up to this size are remembered for the next comparison (the copy and compare stay cheap). */
const MEMO_MAX_BYTES = 4096;

/**
 * classifyResponse with a memory of the last reply it classified: an API that answers the same
 * bytes again — a ping, a cached page, the same 429 error envelope — is classified by one byte
 * comparison instead of a JSON parse and the objects it builds. The classification is a pure
 * function of the status, Content-Type, body and the secrets registered for redaction, so the
 * remembered one is returned as is: its `data` is shared between those replies, and callers only
 * read it. One per load engine (thread); measured ~8× cheaper than a parse for a small success.
 */
export class ResponseClassifier {
  private lastBody: Buffer | null = null;
  private lastStatus = 0;
  private lastContentType: string | undefined = undefined;
  private lastGeneration = -1;
  private last: Classification | null = null;

  classify(
    statusCode: number,
    contentType: string | undefined,
    body: Buffer | null,
    truncated: boolean,
    contentEncoding?: string,
  ): Classification {
    if (contentEncoding !== undefined)
      return classifyResponse(statusCode, contentType, body, truncated, contentEncoding); // rare: not remembered
    const generation = secretsGeneration();
    const last = this.last;
    if (
      last !== null &&
      body !== null &&
      !truncated &&
      statusCode === this.lastStatus &&
      contentType === this.lastContentType &&
      generation === this.lastGeneration &&
      body.equals(this.lastBody!)
    )
      return last;
    const classification = classifyResponse(statusCode, contentType, body, truncated);
    if (body !== null && !truncated && body.length <= MEMO_MAX_BYTES) {
      this.lastBody = Buffer.from(body); // a copy: the reply's buffer belongs to the socket's read
      this.lastStatus = statusCode;
      this.lastContentType = contentType;
      this.lastGeneration = generation;
      this.last = classification;
    }
    return classification;
  }
}
