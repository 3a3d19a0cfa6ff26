/**
 * Seeded randomness for the parts of a run that should be reproducible with a fixed `seed`:
 * scenario and template picks in the driver, work latency, flaky failures and chaos in the
 * reference server. Not for secrets: tokens and cursor keys come from node:crypto.
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
