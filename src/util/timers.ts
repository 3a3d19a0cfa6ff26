/**
 * Timer delays made safe. Node turns a delay above 2³¹−1 ms (about 24.8 days) — or a NaN or
 * negative one — into 1 ms, with a TimeoutOverflowWarning: an absurd computed delay (a Retry-After
 * of 999999999 s, a token lifetime of 1e12 s) would then fire at once and in a loop. Every timer
 * whose delay is computed from outside input goes through `clampDelayMs`; a caller that waits for
 * a far-off instant simply re-checks the clock when the clamped timer fires.
 */
import { setTimeout as delayPromise } from 'node:timers/promises';
import { cancelThreadWake, threadWake, ThreadWake } from './wake-thread.ts';

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

/** Below this wait a timer is too coarse (whole milliseconds, possibly early): turns of the event loop instead. */
const TIMER_WAIT_MS = 1.5;

/** What `wakeSoon` returns, for `cancelWake`. */
export type WakeHandle = NodeJS.Timeout | NodeJS.Immediate | ThreadWake;

/**
 * Call `callback` about `waitMs` from now, never late by a timer's granularity. Once a process has
 * waited this way often enough, a helper thread wakes it a fraction of a millisecond short
 * (wake-thread.ts). Before that, and for a wait shorter than the helper's lead: Node's timers run
 * on the event loop's cached, whole-millisecond time and may fire up to a millisecond early, so the
 * timer is set a millisecond short and the last stretch is one setImmediate turn at a time. The
 * callback re-checks its clock and waits again when it is still early.
 */
export function wakeSoon(waitMs: number, callback: () => void): WakeHandle {
  const wake = threadWake(waitMs, callback);
  if (wake !== null) return wake;
  return waitMs >= TIMER_WAIT_MS ? safeTimeout(callback, waitMs - 1) : setImmediate(callback);
}

/** Cancel a `wakeSoon`, whichever kind it was. */
export function cancelWake(handle: WakeHandle): void {
  if (handle instanceof ThreadWake) return cancelThreadWake(handle);
  clearTimeout(handle as NodeJS.Timeout);
  clearImmediate(handle as NodeJS.Immediate);
}

/** timers/promises' setTimeout with a clamped delay; rejects with an AbortError when `signal` aborts. */
export function safeDelay(delayMs: number, signal?: AbortSignal): Promise<void> {
  return delayPromise(clampDelayMs(delayMs), undefined, signal ? { signal } : undefined);
}
