import { describe, expect, it } from 'vitest';
import {
  MAX_WARMUP_S,
  MIN_RANK_SE,
  NOISE_K,
  noiseBound,
  percentileDrift,
  quantileSamplingSe,
  rateSamplingSe,
  seriesNoise,
  shareSamplingSe,
  steadySeconds,
  timelineNoise,
  timelineSe,
} from '../../src/results/compare/noise.ts';
import type { TimelineRow } from '../../src/contract/result-schema.ts';
import { createRandom } from '../../src/util/random.ts';

const row = (t: number, requests: number, p99 = 10): TimelineRow => ({ t, requests, success: requests, rateLimited: 0, errors: 0, p50: p99 / 2, p99 });
const sdOf = (values: readonly number[]) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
};

describe('steady seconds of a timeline', () => {
  it.each([
    // 30 s: skip ⌈3⌉ warm-up seconds and the last (partial) one
    [30, 3, 28],
    // 5 s: at least one warm-up second
    [5, 1, 3],
    // 300 s: at most MAX_WARMUP_S warm-up seconds
    [300, MAX_WARMUP_S, 298],
  ])('of a %d s run start at t=%d and end at t=%d', (seconds, firstT, lastT) => {
    const steady = steadySeconds(Array.from({ length: seconds }, (_, t) => row(t, 100)));
    expect(steady[0]!.t).toBe(firstT);
    expect(steady[steady.length - 1]!.t).toBe(lastT);
  });

  it('fills seconds missing from the timeline with zero-request rows', () => {
    const steady = steadySeconds([row(0, 5), row(1, 5), row(4, 5), row(5, 5), row(6, 5)]);
    expect(steady.map((r) => [r.t, r.requests])).toEqual([[1, 5], [2, 0], [3, 0], [4, 5], [5, 5]]);
  });
});

describe('series noise (batch means)', () => {
  it.each([
    // too short for any estimate
    [[1, 2], null],
    // a constant series has no noise
    [[5, 5, 5, 5, 5, 5], { mean: 5, se: 0 }],
    // 4 values: 2 batches of 2 are too few, so single values: sd 1.29 / √4
    [[1, 2, 3, 4], { mean: 2.5, se: sdOf([1, 2, 3, 4]) / 2 }],
    // 6 values: 3 batches of 2 with means 1.5, 3.5, 5.5 → sd 2 / √3
    [[1, 2, 3, 4, 5, 6], { mean: 3.5, se: 2 / Math.sqrt(3) }],
  ])('of %j is %j', (values, expected) => {
    const noise = seriesNoise(values);
    if (expected === null) return expect(noise).toBeNull();
    expect(noise!.mean).toBeCloseTo(expected.mean, 9);
    expect(noise!.se).toBeCloseTo(expected.se, 9);
  });

  it('sees through alternating seconds that average out within a batch', () => {
    // 10 s windows make neighbouring seconds anti-correlated; batch means are steady.
    const alternating = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 90 : 110));
    expect(seriesNoise(alternating)!.se).toBe(0);
  });

  it('estimates the standard error of the mean of independent seconds', () => {
    const random = createRandom(11);
    const estimates: number[] = [];
    const means: number[] = [];
    for (let run = 0; run < 400; run++) {
      const values = Array.from({ length: 60 }, () => 100 + (random() - 0.5) * 20);
      const noise = seriesNoise(values)!;
      estimates.push(noise.se);
      means.push(noise.mean);
    }
    const meanEstimate = estimates.reduce((a, b) => a + b, 0) / estimates.length;
    // The estimated SE matches the actual spread of the run means within 15 %.
    expect(meanEstimate / sdOf(means)).toBeGreaterThan(0.85);
    expect(meanEstimate / sdOf(means)).toBeLessThan(1.15);
  });

  it('reads every series of a timeline, percentiles and ratios only from busy seconds', () => {
    const rows = Array.from({ length: 20 }, (_, t) => ({ ...row(t, t % 5 === 0 ? 0 : 100, 20), errors: t % 5 === 0 ? 0 : 2 }));
    const noise = timelineNoise(rows, () => 20);
    expect(noise.requests!.mean).toBeCloseTo(steadySeconds(rows).reduce((s, r) => s + r.requests, 0) / 17, 9);
    expect(noise.p99).toEqual({ mean: 20, se: 0 });
    expect(noise.errors!.mean).toBeCloseTo(0.02, 12);
    expect(noise.errors!.se).toBe(0);
  });
});

describe('percentile drift (per-second percentiles net of sampling)', () => {
  const uniform = (q: number) => q * 100; // a run whose latency spreads evenly over 0..100 ms
  const seconds = (p99s: readonly number[], requests: number) => p99s.map((p99, t) => row(t, requests, p99));
  // Expected sampling SE of one second's p99 over 50 requests under `uniform`: 3 of 50 ranks.
  const perSecondSamplingSe = quantileSamplingSe(0.99, 50, uniform);

  it.each([
    // seconds that differ by no more than their own sampling error show no drift
    ['within sampling', seconds([97, 99, 95, 99, 96, 98, 99, 97], 50), 0],
    // a level that steps up half-way is drift, whatever the per-second sample size
    ['a level shift', seconds([90, 90, 90, 90, 150, 150, 150, 150], 50), 'positive'],
    // identical seconds: nothing to see
    ['flat', seconds([98, 98, 98, 98], 50), 0],
  ] as const)('%s', (_label, rows, expected) => {
    const drift = percentileDrift(rows, (r) => r.p99, 0.99, uniform)!;
    if (expected === 0) expect(drift.se).toBe(0);
    else expect(drift.se).toBeGreaterThan(perSecondSamplingSe);
  });

  it('is smaller than the raw batch-means SE when seconds are noisy only by sampling', () => {
    const random = createRandom(3);
    const rows = Array.from({ length: 30 }, (_, t) => row(t, 50, 94 + random() * 6)); // ±3 ms of sampling wobble
    const raw = seriesNoise(rows.map((r) => r.p99))!;
    expect(percentileDrift(rows, (r) => r.p99, 0.99, uniform)!.se).toBeLessThan(raw.se);
  });

  it('has no estimate below three busy seconds', () => {
    expect(percentileDrift(seconds([90, 95], 50), (r) => r.p99, 0.99, uniform)).toBeNull();
  });
});

describe('standard errors', () => {
  it.each([
    // own series: its SE as is
    [{ mean: 100, se: 2 }, 100, true, 2],
    // borrowed: the relative SE (2 %) of the value
    [{ mean: 100, se: 2 }, 50, false, 1],
    // no series: no timeline evidence
    [null, 50, false, 0],
  ])('timeline SE of %j for value %d (own %s) is %d', (noise, value, own, expected) => {
    expect(timelineSe(noise, value, own)).toBeCloseTo(expected, 9);
  });

  it.each([
    // Poisson count: √400 / 20 s
    [400, 20, 1],
    [0, 20, 0],
    [100, 0, 0],
  ])('throughput SE of %d requests in %d s is %d', (requests, durationS, expected) => {
    expect(rateSamplingSe(requests, durationS)).toBeCloseTo(expected, 9);
  });

  it.each([
    // binomial: √(0.1 × 0.9 / 900)
    [0.1, 900, 0.01],
    [0, 900, 0],
    [0.5, 0, 0],
  ])('share SE of %d of %d requests is %d', (share, requests, expected) => {
    expect(shareSamplingSe(share, requests)).toBeCloseTo(expected, 9);
  });

  const uniform = (q: number) => q * 100; // values spread evenly over 0..100 ms
  it.each([
    // median of 10,000: rank SE 0.005, slope 100 ms per unit → 0.5 ms
    [0.5, 10_000, 0.5],
    // p99 of 10,000: rank SE √(0.0099/10000) ≈ 0.000995 → 0.0995 ms
    [0.99, 10_000, 100 * Math.sqrt(0.0099 / 10_000)],
    // the max: rank SE at least MIN_RANK_SE samples, one-sided interval
    [1, 1000, (100 * MIN_RANK_SE) / 1000],
    // no samples
    [0.5, 0, 0],
  ])('quantile SE of q=%d over %d samples of a uniform 0..100 ms is %d', (q, requests, expected) => {
    expect(quantileSamplingSe(q, requests, uniform)).toBeCloseTo(expected, 6);
  });

  it.each([
    // K combined SEs: 3 × √(3² + 4²)
    ['per_s', 100, 100, 3, 4, NOISE_K * 5],
    // ms: at least HDR's 0.1 % plus 0.001 ms rounding
    ['ms', 1000, 1000, 0, 0, 1.001],
    // ratio: no resolution floor
    ['ratio', 0.01, 0.02, 0, 0, 0],
  ] as const)('noise bound of %s %d → %d with SEs %d, %d is %d', (unit, base, head, seBase, seHead, expected) => {
    expect(noiseBound(unit, base, head, seBase, seHead)).toBeCloseTo(expected, 9);
  });
});
