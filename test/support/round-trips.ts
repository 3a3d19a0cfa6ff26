import type { Admission, RoundTrip } from '../../src/verify/round-trip.ts';

/** One round trip for a verdict table: sent at `sentMs`, answered 1 ms later unless told. */
export function ex(
  sentMs: number,
  admission: Admission,
  options: { doneMs?: number; retryAfterS?: number | null; method?: string; status?: number } = {},
): RoundTrip {
  const status = options.status ?? (admission === 'refused' ? 429 : admission === 'failed' ? 0 : 200);
  return {
    method: options.method ?? 'ping',
    sentMs,
    doneMs: options.doneMs ?? sentMs + 1,
    status,
    outcome:
      admission === 'admitted'
        ? 'success'
        : admission === 'refused'
          ? 'error:rate_limit_exceeded'
          : 'transport:ECONNRESET',
    admission,
    retryAfterS: admission === 'refused' ? (options.retryAfterS === undefined ? 1 : options.retryAfterS) : null,
  };
}

/** `count` admitted requests one after another from `fromMs`, `stepMs` apart. */
export function admitted(count: number, fromMs: number, stepMs = 1, method = 'ping'): RoundTrip[] {
  return Array.from({ length: count }, (_, i) => ex(fromMs + i * stepMs, 'admitted', { method }));
}

/** `count` refusals `stepMs` apart, each announcing `retryAfterS`. */
export function refused(count: number, fromMs: number, stepMs: number, retryAfterS: number | null = 1): RoundTrip[] {
  return Array.from({ length: count }, (_, i) => ex(fromMs + i * stepMs, 'refused', { retryAfterS }));
}
