/**
 * Token bucket: capacity `limit`, refilled continuously at limit/window. Deliberately
 * non-conformant with "N per window": a full bucket plus what refills during a window admits
 * more than `limit` in that window. With `countRefused`, refusals drain the bucket into debt.
 */
import { ADMITTED, Limiter, refused, type LimitDecision, type LimiterSettings } from './limiter.ts';

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class TokenBucketLimiter extends Limiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #refillPerMs: number;

  constructor(settings: LimiterSettings) {
    super(settings);
    this.#refillPerMs = settings.limit / settings.windowMs;
  }

  check(key: string, nowMs: number): LimitDecision {
    const tokens = this.#tokensAt(key, nowMs);
    if (tokens >= 1) return ADMITTED;
    // Whole ms, rounded up, so that waiting exactly this long is always enough.
    return refused(Math.max(1, Math.ceil((1 - tokens) / this.#refillPerMs)));
  }

  record(key: string, nowMs: number, _admitted: boolean): void {
    this.#buckets.set(key, { tokens: this.#tokensAt(key, nowMs) - 1, updatedMs: nowMs });
  }

  sweep(nowMs: number): void {
    for (const key of this.#buckets.keys()) if (this.#tokensAt(key, nowMs) >= this.limit) this.#buckets.delete(key);
  }

  get size(): number {
    return this.#buckets.size;
  }

  #tokensAt(key: string, nowMs: number): number {
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return this.limit;
    return Math.min(this.limit, bucket.tokens + Math.max(0, nowMs - bucket.updatedMs) * this.#refillPerMs);
  }
}
