/**
 * Timer delays made safe. Node turns a delay above 2³¹−1 ms (about 24.8 days) — or a NaN or
 * negative one — into 1 ms, with a TimeoutOverflowWarning: an absurd computed delay (a Retry-After
 * of 999999999 s, a token lifetime of 1e12 s) would then fire at once and in a loop. Every timer
 * whose delay is computed from outside input goes through `clampDelayMs`; a caller that waits for
 * a far-off instant simply re-checks the clock when the clamped timer fires.
 */
import { setTimeout as delayPromise } from 'node:timers/promises';

/** The longest delay Node's timers honour (2³¹−1 ms). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** `ms` as a delay a timer honours: NaN and negatives become 0, anything above the maximum the maximum. */
export function clampDelayMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}

/** setTimeout with a clamped delay. */
export function safeTimeout(callback: () => void, delayMs: number): NodeJS.Timeout {
  return setTimeout(callback, clampDelayMs(delayMs));
}

/** timers/promises' setTimeout with a clamped delay; rejects with an AbortError when `signal` aborts. */
export function safeDelay(delayMs: number, signal?: AbortSignal): Promise<void> {
  return delayPromise(clampDelayMs(delayMs), undefined, signal ? { signal } : undefined);
}
