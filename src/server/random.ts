/** Seeded randomness for the reference server, and the log-normal sampler of `work`'s latency. */
import type { Random } from '../util/random.ts';

export { createRandom, type Random } from '../util/random.ts';

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
