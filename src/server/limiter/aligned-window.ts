/**
 * Fixed windows aligned to the clock: they reset at multiples of `windowMs` for every key at
 * once. With `countRefused`, requests beyond the limit carry over into the following windows
 * (each window pays off `limit` of the debt), so retrying while throttled keeps a key blocked.
 */
import { ADMITTED, Limiter, refused, type LimitDecision } from './limiter.ts';

interface Window {
  /** floor(startMs / windowMs): which wall-clock window the count belongs to. */
  index: number;
  count: number;
}

export class AlignedWindowLimiter extends Limiter {
  readonly #windows = new Map<string, Window>();

  check(key: string, nowMs: number): LimitDecision {
    const index = Math.floor(nowMs / this.windowMs);
    const count = this.#countAt(key, index);
    if (count < this.limit) return ADMITTED;
    // Whole windows until the carried count drops below the limit; without carry-over, the next one.
    const windowsToWait = this.countRefused ? Math.floor(count / this.limit) : 1;
    return refused((index + windowsToWait) * this.windowMs - nowMs);
  }

  record(key: string, nowMs: number, _admitted: boolean): void {
    const index = Math.floor(nowMs / this.windowMs);
    this.#windows.set(key, { index, count: this.#countAt(key, index) + 1 });
  }

  sweep(nowMs: number): void {
    const index = Math.floor(nowMs / this.windowMs);
    for (const key of this.#windows.keys()) if (this.#countAt(key, index) === 0) this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }

  /** The key's count in window `index`, with debt carried over when refused requests count. */
  #countAt(key: string, index: number): number {
    const window = this.#windows.get(key);
    if (window === undefined) return 0;
    if (window.index === index) return window.count;
    if (!this.countRefused) return 0;
    return Math.max(0, window.count - this.limit * (index - window.index));
  }
}
