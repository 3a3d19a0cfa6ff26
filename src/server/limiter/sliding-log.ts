/**
 * Exact sliding log: a request at `t` counts until `t + windowMs`, so any window of that length
 * holds at most `limit` admitted requests. Memory is O(limit) per key (more with `countRefused`,
 * where refused requests join the log).
 */
import { ADMITTED, Limiter, refused, type LimitDecision } from './limiter.ts';

export class SlidingLogLimiter extends Limiter {
  /** Per key: request times in ascending order. */
  readonly #logs = new Map<string, number[]>();

  check(key: string, nowMs: number): LimitDecision {
    const log = this.#logs.get(key);
    if (log === undefined) return ADMITTED;
    // Expired entries change no verdict; dropping them keeps the log short.
    while (log.length > 0 && log[0]! + this.windowMs <= nowMs) log.shift();
    if (log.length < this.limit) return ADMITTED;
    // Admitted once all but limit-1 entries have expired: wait for entry number length-limit.
    return refused(log[log.length - this.limit]! + this.windowMs - nowMs);
  }

  record(key: string, nowMs: number, _admitted: boolean): void {
    const log = this.#logs.get(key);
    if (log === undefined) this.#logs.set(key, [nowMs]);
    else log.push(nowMs);
  }

  sweep(nowMs: number): void {
    for (const [key, log] of this.#logs) if ((log.at(-1) ?? -Infinity) + this.windowMs <= nowMs) this.#logs.delete(key);
  }

  get size(): number {
    return this.#logs.size;
  }
}
