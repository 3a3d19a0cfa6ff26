/** The limiter for an algorithm name, and the Retry-After seconds a refusal announces. */
import type { LimiterAlgorithm } from '../options.ts';
import { AlignedWindowLimiter } from './aligned-window.ts';
import type { Limiter, LimiterSettings } from './limiter.ts';
import { SlidingLogLimiter } from './sliding-log.ts';
import { TokenBucketLimiter } from './token-bucket.ts';
import { FixedWindowLimiter } from './fixed-window.ts';

const ALGORITHMS: Readonly<Record<LimiterAlgorithm, new (settings: LimiterSettings) => Limiter>> = {
  fixed: FixedWindowLimiter,
  'fixed-aligned': AlignedWindowLimiter,
  sliding: SlidingLogLimiter,
  'token-bucket': TokenBucketLimiter,
};

/** The limiter implementing `algorithm`. */
export function createLimiter(algorithm: LimiterAlgorithm, settings: LimiterSettings): Limiter {
  return new ALGORITHMS[algorithm](settings);
}

/**
 * The Retry-After header value (whole seconds) for a refusal `retryAfterMs` away: rounded up so
 * that a client waiting exactly this long is admitted, and never 0 for a refusal. The
 * `retry-after-floor` fault rounds down instead (and may announce 0).
 */
export function retryAfterSeconds(retryAfterMs: number, rounding: 'ceil' | 'floor' = 'ceil'): number {
  if (rounding === 'floor') return Math.max(0, Math.floor(retryAfterMs / 1000));
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}
