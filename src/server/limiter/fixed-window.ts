/**
 * Fixed window per key, starting at the key's first request after the previous window ended.
 * With `countRefused`, a refusal restarts the window at the refusal time (count kept over the
 * limit), so retrying while throttled pushes the reset further out.
 */
import { ADMITTED, Limiter, refused, type LimitDecision } from './limiter.ts';

interface Window {
  startMs: number;
  count: number;
}

export class FixedWindowLimiter extends Limiter {
  readonly #windows = new Map<string, Window>();

  check(key: string, nowMs: number): LimitDecision {
    const window = this.#windows.get(key);
    if (window === undefined || nowMs >= window.startMs + this.windowMs || window.count < this.limit) return ADMITTED;
    return refused(window.startMs + this.windowMs - nowMs);
  }

  record(key: string, nowMs: number, admitted: boolean): void {
    const window = this.#windows.get(key);
    if (window === undefined || nowMs >= window.startMs + this.windowMs) {
      this.#windows.set(key, { startMs: nowMs, count: 1 });
      return;
    }
    window.count += 1;
    if (!admitted) window.startMs = nowMs;
  }

  sweep(nowMs: number): void {
    for (const [key, window] of this.#windows) if (nowMs >= window.startMs + this.windowMs) this.#windows.delete(key);
  }

  get size(): number {
    return this.#windows.size;
  }
}
