/**
 * The metrics snapshot's arithmetic: Prometheus bucket counts read off HDR histograms, and exact
 * sums of snapshots (worker threads side by side, capacity steps one after another).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLatencyHistogram, recordUs } from '../../src/metrics/hdr.ts';
import { bucketCounts, sumMetricsSnapshots, type MetricsSnapshot } from '../../src/prometheus/metrics-snapshot.ts';

function histogramOf(valuesUs: readonly number[]) {
  const h = createLatencyHistogram();
  for (const v of valuesUs) recordUs(h, v);
  return h;
}

describe('bucketCounts', () => {
  it('counts the values at or below each bound, cumulatively, with the sum and count', () => {
    const values = [500, 1000, 1001, 2500, 10_000, 2_000_000];
    const counted = bucketCounts(histogramOf(values), [1000, 2000, 5000, 10_000, 1_000_000]);
    expect(counted.cumulative).toEqual([2, 3, 4, 5, 5]);
    expect(counted.count).toBe(6);
    const sumS = values.reduce((a, b) => a + b, 0) / 1e6;
    expect(Math.abs(counted.sumSeconds - sumS) / sumS).toBeLessThan(0.001);
  });

  it('is exact where HDR records values exactly (below 2048 µs), for any values and bounds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2047 }), { maxLength: 200 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 2047 }), { minLength: 1, maxLength: 10 }),
        (values, boundList) => {
          const bounds = [...boundList].sort((a, b) => a - b);
          const counted = bucketCounts(histogramOf(values), bounds);
          expect(counted.cumulative).toEqual(bounds.map((b) => values.filter((v) => v <= b).length));
          expect(counted.count).toBe(values.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('gives zeros for an empty histogram', () => {
    expect(bucketCounts(createLatencyHistogram(), [1, 2])).toEqual({ cumulative: [0, 0], sumSeconds: 0, count: 0 });
  });
});

function snapshot(n: number, gauges = { inFlight: n, offeredArrivalRate: 10 * n, achievedRequestRate: n }): MetricsSnapshot {
  const buckets = { cumulative: [n, 2 * n], sumSeconds: n / 10, count: 3 * n };
  return {
    boundsMs: [1, 10],
    requests: [
      { phase: 'p', method: 'ping', outcome: 'success', count: n },
      { phase: 'p', method: 'ping', outcome: `error:e${n}`, count: 1 },
    ],
    latency: [{ phase: 'p', method: 'ping', buckets }],
    serviceTime: [{ phase: 'p', method: 'ping', buckets }],
    scheduleLag: [{ phase: 'p', buckets }],
    tokens: { requests: n, failures: 1 },
    skipped: { 'max in-flight reached': n },
    retryAfterWaits: { count: n, seconds: n / 2 },
    clients: [{ client: `client-${n}`, sent: n, rateLimited: 1 }],
    gauges,
  };
}

describe('sumMetricsSnapshots', () => {
  it('adds counters, histograms and (side by side) gauges exactly, keeping distinct labels apart', () => {
    const sum = sumMetricsSnapshots([snapshot(1), snapshot(2)])!;
    expect(sum.requests).toEqual([
      { phase: 'p', method: 'ping', outcome: 'success', count: 3 },
      { phase: 'p', method: 'ping', outcome: 'error:e1', count: 1 },
      { phase: 'p', method: 'ping', outcome: 'error:e2', count: 1 },
    ]);
    expect(sum.latency[0]!.buckets).toMatchObject({ cumulative: [3, 6], count: 9 });
    expect(sum.latency[0]!.buckets.sumSeconds).toBeCloseTo(0.3, 12);
    expect(sum.scheduleLag[0]!.buckets.count).toBe(9);
    expect(sum.tokens).toEqual({ requests: 3, failures: 2 });
    expect(sum.skipped).toEqual({ 'max in-flight reached': 3 });
    expect(sum.retryAfterWaits).toEqual({ count: 3, seconds: 1.5 });
    expect(sum.clients.map((c) => c.client)).toEqual(['client-1', 'client-2']);
    expect(sum.gauges).toEqual({ inFlight: 3, offeredArrivalRate: 30, achievedRequestRate: 3 });
  });

  it("takes the last part's gauges for steps one after another", () => {
    expect(sumMetricsSnapshots([snapshot(1), snapshot(2)], 'last')!.gauges).toEqual(snapshot(2).gauges);
  });

  it('refuses parts with different bounds, and sums nothing to null', () => {
    expect(() => sumMetricsSnapshots([snapshot(1), { ...snapshot(2), boundsMs: [1, 20] }])).toThrow(/bucket bounds/);
    expect(sumMetricsSnapshots([])).toBeNull();
  });
});
