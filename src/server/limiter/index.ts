export { ADMITTED, Limiter, type LimitDecision, type LimiterSettings } from './limiter.ts';
export { FixedWindowLimiter } from './fixed-window.ts';
export { AlignedWindowLimiter } from './aligned-window.ts';
export { SlidingLogLimiter } from './sliding-log.ts';
export { TokenBucketLimiter } from './token-bucket.ts';
export { createLimiter, retryAfterSeconds } from './create-limiter.ts';
