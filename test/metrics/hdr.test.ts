import { describe, expect, it } from 'vitest';
import { addHistograms, createCompactHistogram, createLatencyHistogram, decodeHistogram, encodeHistogram, percentilesMs, recordUs } from '../../src/metrics/hdr.ts';

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
    expect(percentilesMs(createLatencyHistogram())).toEqual({ min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
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
    expect(percentilesMs(sum).max).toBeCloseTo(10, 1);
  });

  it('clamps sub-microsecond and fractional values', () => {
    const h = createLatencyHistogram();
    recordUs(h, 0);
    recordUs(h, 2.6);
    expect(h.minNonZeroValue).toBe(1);
    expect(h.maxValue).toBe(3);
  });
});
