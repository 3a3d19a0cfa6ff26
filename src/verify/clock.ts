/**
 * Time as the verifier sees it: a monotonic clock (the same base as callApi's timestamps) for
 * every interval, the wall clock only to read HTTP-date Retry-After values.
 */
import { performance } from 'node:perf_hooks';
import { safeDelay } from '../util/timers.ts';

export interface Clock {
  /** Monotonic ms (performance.now() base). */
  now(): number;
  /** Wall-clock epoch ms. */
  epochMs(): number;
}

export const systemClock: Clock = { now: () => performance.now(), epochMs: () => Date.now() };

/**
 * Resolve once `clock.now() >= targetMs`. Timers may fire a little early on a busy event loop,
 * so the clock is checked again after every timer: waiting "exactly N s" means at least N s.
 * Rejects with the signal's reason when aborted (the driver's wait for a phase start resolves instead): a check
 * that is stopped must not go on as if the wait had ended.
 */
export async function sleepUntilOrThrow(clock: Clock, targetMs: number, signal?: AbortSignal): Promise<void> {
  for (;;) {
    signal?.throwIfAborted();
    const remainingMs = targetMs - clock.now();
    if (remainingMs <= 0) return;
    // Clamped: a far-off target (an absurd Retry-After) must not become Node's 1 ms overflow timer.
    await safeDelay(Math.ceil(remainingMs), signal);
  }
}
