/**
 * Seeded randomness for the server's random parts (work latency, flaky failures, broken
 * envelopes, chaos), so a run with a fixed `seed` is reproducible. Not for secrets: tokens and
 * cursor keys come from node:crypto.
 */

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/** mulberry32: tiny, fast, good enough for load-test jitter. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** z-score of the 99th percentile of the standard normal distribution. */
const Z_P99 = 2.326_347_874;

/**
 * A log-normal sampler with the given median and 99th percentile (ms): the usual shape of
 * service latency (a hump near the median and a long right tail).
 */
export function logNormalSampler(random: Random, p50Ms: number, p99Ms: number): () => number {
  const mu = Math.log(p50Ms);
  const sigma = Math.log(p99Ms / p50Ms) / Z_P99;
  return () => {
    // Box–Muller; 1 - random() keeps the logarithm's argument in (0, 1].
    const gaussian = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.exp(mu + sigma * gaussian);
  };
}
