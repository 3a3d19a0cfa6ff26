/**
 * Retry-After (RFC 9110 §10.2.3): either delay-seconds (a non-negative integer — what the API
 * conventions promise) or an HTTP-date. Both are read; the form is kept so a check can insist on
 * seconds.
 */
export type RetryAfter =
  | { readonly form: 'delta'; readonly seconds: number }
  | { readonly form: 'date'; readonly seconds: number }
  | { readonly form: 'missing' }
  | { readonly form: 'invalid'; readonly raw: string };

const DELAY_SECONDS = /^\d+$/;

export function parseRetryAfter(value: string | string[] | undefined, nowEpochMs: number): RetryAfter {
  if (value === undefined) return { form: 'missing' };
  const raw = (Array.isArray(value) ? value.join(',') : value).trim();
  if (raw.length === 0) return { form: 'invalid', raw };
  // Digits too many to be a finite number are no delay: Infinity seconds would never end a wait.
  if (DELAY_SECONDS.test(raw))
    return Number.isFinite(Number(raw)) ? { form: 'delta', seconds: Number(raw) } : { form: 'invalid', raw: raw.slice(0, 80) };
  const dateMs = /[a-z]/i.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(dateMs)) return { form: 'invalid', raw: raw.slice(0, 80) };
  return { form: 'date', seconds: Math.max(0, Math.ceil((dateMs - nowEpochMs) / 1000)) };
}

/**
 * The compact form the driver's samples carry: seconds ≥ 0, -1 when absent, -2 when unusable.
 * The driver passes the header text it scanned from raw headers.
 */
export function retryAfterSeconds(value: string | undefined, nowEpochMs: number): number {
  const parsed = parseRetryAfter(value, nowEpochMs);
  if (parsed.form === 'missing') return -1;
  if (parsed.form === 'invalid') return -2;
  return parsed.seconds;
}
