import { describe, expect, it } from 'vitest';
import {
  addHistograms,
  copyHistogram,
  createCompactHistogram,
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  percentilesMs,
  recordUs,
  roundMs,
  usToMs,
  valuesAtPercentilesUs,
  type Histogram,
} from '../../src/metrics/hdr.ts';
import { createRandom } from '../../src/util/random.ts';

/** The library's own reading, the reference the one-pass reader must match bit for bit. */
function libraryPercentilesMs(h: Histogram) {
  if (h.totalCount === 0) return { min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  const at = (p: number) => usToMs(h.getValueAtPercentile(p));
  return { min: at(0), mean: usToMs(h.mean), p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: at(100) };
}

const DISTRIBUTIONS: [string, (r: () => number) => number][] = [
  ['uniform 1–100 ms', (r) => 1000 + r() * 99_000],
  ['log-normal-ish 0.01 ms – 1 min', (r) => Math.exp(r() * Math.log(6e6)) * 10],
  ['constant 7 µs', () => 7],
  ['sub-µs and tiny values', (r) => r() * 3],
  ['huge values past 2^31 µs (resize path)', (r) => 2 ** 31 + r() * 2 ** 33],
];

describe('hdr helpers', () => {
  it('reads percentiles in ms with 3 decimals from µs values', () => {
    const h = createLatencyHistogram();
    for (let us = 1000; us <= 100_000; us += 1000) recordUs(h, us); // 1..100 ms, uniform
    const p = percentilesMs(h);
    expect(p.min).toBe(1);
    expect(p.p50).toBeCloseTo(50, 0);
    expect(p.p99).toBeCloseTo(99, 0);
    expect(p.max).toBeCloseTo(100, 0);
    expect(p.mean).toBeCloseTo(50.5, 1);
  });

  it('gives zeros for an empty histogram', () => {
    expect(percentilesMs(createLatencyHistogram())).toEqual({
      min: 0,
      mean: 0,
      p50: 0,
      p90: 0,
      p99: 0,
      p999: 0,
      max: 0,
    });
  });

  it('round-trips through the compressed encoding and adds exactly', () => {
    const a = createLatencyHistogram();
    const b = createCompactHistogram();
    for (let i = 1; i <= 500; i++) recordUs(a, i * 10);
    for (let i = 1; i <= 500; i++) recordUs(b, 5000 + i * 10);
    const decoded = decodeHistogram(encodeHistogram(a));
    expect(decoded.totalCount).toBe(500);
    expect(percentilesMs(decoded)).toEqual(percentilesMs(a));
    const sum = addHistograms([decodeHistogram(encodeHistogram(a)), decodeHistogram(encodeHistogram(b))]);
    expect(sum.totalCount).toBe(1000);
    // The compact histogram's buckets are at most 1/16 of the value wide, and adding it into a
    // finer histogram places each bucket at its lowest value.
    expect(Math.abs(percentilesMs(sum).max - 10)).toBeLessThanOrEqual(10 / 16);
  });

  it('adds compact histograms into a compact sum when asked, keeping their figures', () => {
    const a = createCompactHistogram();
    for (let i = 1; i <= 300; i++) recordUs(a, i * 97);
    const sum = addHistograms([decodeHistogram(encodeHistogram(a))], createCompactHistogram);
    expect(percentilesMs(sum)).toEqual(percentilesMs(a));
  });

  it.each(DISTRIBUTIONS)('copies exactly, into a new histogram or a spare of any earlier content: %s', (_, draw) => {
    for (const create of [createLatencyHistogram, createCompactHistogram]) {
      const random = createRandom(11);
      const source = create();
      for (let i = 0; i < 3000; i++) recordUs(source, draw(random));
      // Spares as a checkpoint finds them: the same shape with other counts, one of the other
      // precision, one grown past the source's range (a resize), an empty one.
      const other = create();
      for (let i = 0; i < 700; i++) recordUs(other, 50 + random() * 1e5);
      const grown = create();
      recordUs(grown, 2 ** 40);
      const otherPrecision = create === createLatencyHistogram ? createCompactHistogram() : createLatencyHistogram();
      recordUs(otherPrecision, 123);
      for (const spare of [undefined, other, grown, otherPrecision, create()]) {
        const copy = copyHistogram(source, spare);
        expect(encodeHistogram(copy)).toBe(encodeHistogram(source));
        expect([copy.totalCount, copy.minNonZeroValue, copy.maxValue, copy.mean, copy.stdDeviation]).toEqual([
          source.totalCount,
          source.minNonZeroValue,
          source.maxValue,
          source.mean,
          source.stdDeviation,
        ]);
        expect(libraryPercentilesMs(copy)).toEqual(libraryPercentilesMs(source));
        // A copy is its own: recording into it leaves the source as it was.
        recordUs(copy, 42);
        expect(copy.totalCount).toBe(source.totalCount + 1);
      }
    }
  });

  it('clamps sub-microsecond and fractional values', () => {
    const h = createLatencyHistogram();
    recordUs(h, 0);
    recordUs(h, 2.6);
    expect(h.minNonZeroValue).toBe(1);
    expect(h.maxValue).toBe(3);
  });

  it.each(DISTRIBUTIONS)('recordUs fills exactly the buckets recordValue fills: %s', (_, draw) => {
    for (const create of [createLatencyHistogram, createCompactHistogram]) {
      const random = createRandom(7);
      const fast = create();
      const reference = create();
      for (let i = 0; i < 5000; i++) {
        const us = draw(random);
        recordUs(fast, us);
        reference.recordValue(us < 1 ? 1 : Math.round(us));
      }
      expect(encodeHistogram(fast)).toBe(encodeHistogram(reference));
      expect([fast.totalCount, fast.maxValue, fast.minNonZeroValue]).toEqual([
        reference.totalCount,
        reference.maxValue,
        reference.minNonZeroValue,
      ]);
    }
  });

  it.each(DISTRIBUTIONS)('one-pass percentiles equal the library’s getValueAtPercentile and mean: %s', (_, draw) => {
    for (const create of [createLatencyHistogram, createCompactHistogram]) {
      const random = createRandom(11);
      const h = create();
      for (let i = 0; i < 3000; i++) recordUs(h, draw(random));
      expect(percentilesMs(h)).toEqual(libraryPercentilesMs(h));
      expect(percentilesMs(decodeHistogram(encodeHistogram(h)))).toEqual(libraryPercentilesMs(h));
      const { valuesUs } = valuesAtPercentilesUs(h, [25, 75, 99.99]);
      expect(valuesUs).toEqual([25, 75, 99.99].map((p) => h.getValueAtPercentile(p)));
    }
  });

  it.each([
    [1.0004, 1], // rounds to 3 decimals
    [2.0006, 2.001],
    [-3, 0], // never negative
  ])('roundMs(%s) = %s', (ms, expected) => {
    expect(roundMs(ms)).toBe(expected);
  });
});
