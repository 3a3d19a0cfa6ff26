/**
 * Retry-After (RFC 9110 §10.2.3): either delay-seconds (a non-negative integer — what the API
 * conventions promise) or an HTTP-date. Both are read; the form is kept so a check can insist on
 * seconds. A wait longer than MAX_RETRY_AFTER_S (999999999 s, a date in year 9999) is not an
 * instruction anyone can follow: it is `invalid` — a finding — and never waited for. So is a
 * Retry-After sent twice on one reply: it is a singleton field, and which of two waits was meant
 * (1 s or 120 s) cannot be known.
 */
import { sanitizeText } from '../util/sanitize.ts';

export type RetryAfter =
  | { readonly form: 'delta'; readonly seconds: number }
  | { readonly form: 'date'; readonly seconds: number }
  | { readonly form: 'missing' }
  /**
   * `tooLong`: well-formed, but a wait over MAX_RETRY_AFTER_S (a finding, never waited for);
   * `repeated`: the header came this many times (each value quoted in `raw`).
   */
  | { readonly form: 'invalid'; readonly raw: string; readonly tooLong?: true; readonly repeated?: number };

const DELAY_SECONDS = /^\d+$/;
/** The longest Retry-After taken at its word: one day. */
export const MAX_RETRY_AFTER_S = 24 * 3600;

/** Header values as undici gives them: one string, or an array when the header came more than once. */
export type HeaderValues = string | readonly string[] | undefined;

export function parseRetryAfter(value: HeaderValues, nowEpochMs: number): RetryAfter {
  if (value === undefined) return { form: 'missing' };
  if (typeof value !== 'string') {
    if (value.length === 1) return parseRetryAfter(value[0], nowEpochMs);
    const raw = value.map((v) => JSON.stringify(sanitizeText(v, 40))).join(', ');
    return { form: 'invalid', raw: raw.slice(0, 120), repeated: value.length };
  }
  const raw = value.trim();
  if (raw.length === 0) return { form: 'invalid', raw };
  if (DELAY_SECONDS.test(raw)) {
    const seconds = Number(raw);
    return seconds <= MAX_RETRY_AFTER_S
      ? { form: 'delta', seconds }
      : { form: 'invalid', raw: raw.slice(0, 80), tooLong: true };
  }
  const dateMs = /[a-z]/i.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(dateMs)) return { form: 'invalid', raw: raw.slice(0, 80) };
  const seconds = Math.max(0, Math.ceil((dateMs - nowEpochMs) / 1000));
  return seconds <= MAX_RETRY_AFTER_S
    ? { form: 'date', seconds }
    : { form: 'invalid', raw: raw.slice(0, 80), tooLong: true };
}

/** The compact form's state when there was no Retry-After (or the reply was no 429). */
export const RETRY_AFTER_ABSENT = -1;
/** The compact form's state when the Retry-After cannot be followed (not delay-seconds or an HTTP-date within a day). */
export const RETRY_AFTER_UNUSABLE = -2;

/**
 * The compact form the driver's samples carry, a number so that the hot path allocates nothing:
 * seconds ≥ 0, else RETRY_AFTER_ABSENT or RETRY_AFTER_UNUSABLE. The driver passes the header
 * text it scanned from raw headers (an array when it came twice).
 */
export function retryAfterSeconds(value: HeaderValues, nowEpochMs: number): number {
  const parsed = parseRetryAfter(value, nowEpochMs);
  if (parsed.form === 'missing') return RETRY_AFTER_ABSENT;
  if (parsed.form === 'invalid') return RETRY_AFTER_UNUSABLE;
  return parsed.seconds;
}

/** How an unusable Retry-After is described in a run's findings ("the server sent …"). */
export function describeUnusableRetryAfter(value: HeaderValues): string {
  const parsed = parseRetryAfter(value, Date.now());
  if (parsed.form === 'invalid' && parsed.repeated !== undefined)
    return `${parsed.repeated} Retry-After headers on one reply (${parsed.raw}), an unusable value (it is a singleton field)`;
  const first = typeof value === 'string' ? value : (value?.[0] ?? '');
  return `an unusable Retry-After (first: ${JSON.stringify(sanitizeText(first, 60))}; not delay-seconds or an HTTP-date within a day)`;
}
