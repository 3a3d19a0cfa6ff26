/**
 * The metrics snapshot's arithmetic: Prometheus bucket counts read off HDR histograms, and exact
 * sums of snapshots (worker threads side by side, capacity steps one after another).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLatencyHistogram, recordUs } from '../../src/metrics/hdr.ts';
import { TRACE_SENT } from '../../src/metrics/exemplars.ts';
import { Recorder } from '../../src/metrics/recorder.ts';
import {
  bucketCounts,
  buildMetricsSnapshot,
  DEFAULT_METRICS_BUCKETS_MS,
  sumMetricsSnapshots,
  type MetricsSnapshot,
} from '../../src/prometheus/metrics-snapshot.ts';

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

function snapshot(
  n: number,
  gauges = {
    inFlight: n,
    offeredArrivalRate: 10 * n,
    achievedRequestRate: n,
    byWorkload: [{ workload: 'default', offeredArrivalRate: 10 * n, achievedRequestRate: n }],
  },
): MetricsSnapshot {
  const buckets = { cumulative: [n, 2 * n], sumSeconds: n / 10, count: 3 * n };
  const scope = { workload: 'default', tags: [] };
  return {
    boundsMs: [1, 10],
    tagKeys: [],
    requests: [
      { ...scope, phase: 'p', method: 'ping', outcome: 'success', count: n },
      { ...scope, phase: 'p', method: 'ping', outcome: `error:e${n}`, count: 1 },
    ],
    latency: [{ ...scope, phase: 'p', method: 'ping', buckets }],
    serviceTime: [{ ...scope, phase: 'p', method: 'ping', buckets }],
    scheduleLag: [{ workload: 'default', phase: 'p', buckets }],
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
    const scope = { workload: 'default', tags: [] };
    expect(sum.requests).toEqual([
      { ...scope, phase: 'p', method: 'ping', outcome: 'success', count: 3 },
      { ...scope, phase: 'p', method: 'ping', outcome: 'error:e1', count: 1 },
      { ...scope, phase: 'p', method: 'ping', outcome: 'error:e2', count: 1 },
    ]);
    expect(sum.latency[0]!.buckets).toMatchObject({ cumulative: [3, 6], count: 9 });
    expect(sum.latency[0]!.buckets.sumSeconds).toBeCloseTo(0.3, 12);
    expect(sum.scheduleLag[0]!.buckets.count).toBe(9);
    expect(sum.tokens).toEqual({ requests: 3, failures: 2 });
    expect(sum.skipped).toEqual({ 'max in-flight reached': 3 });
    expect(sum.retryAfterWaits).toEqual({ count: 3, seconds: 1.5 });
    expect(sum.clients.map((c) => c.client)).toEqual(['client-1', 'client-2']);
    expect(sum.gauges).toEqual({
      inFlight: 3,
      offeredArrivalRate: 30,
      achievedRequestRate: 3,
      byWorkload: [{ workload: 'default', offeredArrivalRate: 30, achievedRequestRate: 3 }],
    });
  });

  it("takes the last part's gauges for steps one after another", () => {
    expect(sumMetricsSnapshots([snapshot(1), snapshot(2)], 'last')!.gauges).toEqual(snapshot(2).gauges);
  });

  it('refuses parts with different bounds, and sums nothing to null', () => {
    expect(() => sumMetricsSnapshots([snapshot(1), { ...snapshot(2), boundsMs: [1, 20] }])).toThrow(/bucket bounds/);
    expect(sumMetricsSnapshots([])).toBeNull();
  });
});

describe('bucket exemplars', () => {
  const dims = { methods: ['ping', 'echo'], phases: ['p'], clients: ['c'] };
  /** A finished request of `ping` taking `latencyMs` (service time half of it), done at `doneAtMs`, with ids derived from `id`. */
  const request = (id: number, latencyMs: number, doneAtMs: number, traceFlags = TRACE_SENT, methodIndex = 0) => ({
    methodIndex,
    phaseIndex: 0,
    clientIndex: 0,
    outcome: 'success',
    status: 200,
    sentAtMs: doneAtMs - latencyMs,
    doneAtMs,
    latencyUs: latencyMs * 1000,
    serviceUs: latencyMs * 500,
    lagUs: 0,
    retryAfterS: -1,
    backoffWaitedMs: -1,
    backoffRetryAfterS: -1,
    detail: '',
    trace0: id,
    trace1: 0,
    trace2: 0,
    trace3: 0xffffffff,
    span0: 0,
    span1: id,
    traceFlags,
  });
  const traceOf = (id: number): string => `${id.toString(16).padStart(8, '0')}0000000000000000ffffffff`;
  const read = (recorder: Recorder, boundsMs: readonly number[], originEpochMs = 1_795_000_000_000): MetricsSnapshot =>
    buildMetricsSnapshot(
      recorder,
      recorder.snapshot(5000),
      { inFlight: 0, offeredArrivalRate: 0 },
      { bucketsMs: boundsMs, labelledClients: [] },
      originEpochMs,
    );

  it("are each bucket's latest request with a trace context, in seconds, stamped in epoch seconds", () => {
    const recorder = new Recorder(dims, { rateLimit: null });
    recorder.record(request(1, 3, 100));
    recorder.record(request(2, 4, 200)); // same bucket (2, 5], later: kept
    recorder.record(request(3, 4.5, 300, 0)); // no traceparent sent: never an exemplar
    recorder.record(request(4, 40, 150));
    recorder.record(request(5, 20_000, 400)); // above the last bound: +Inf
    recorder.record(request(6, 1, 50, TRACE_SENT, 1)); // echo has its own
    const snap = read(recorder, DEFAULT_METRICS_BUCKETS_MS);
    const ping = snap.latency.find((l) => l.method === 'ping')!.exemplars!;
    expect(ping).toHaveLength(DEFAULT_METRICS_BUCKETS_MS.length + 1);
    const at = (le: number | null) =>
      ping[le === null ? DEFAULT_METRICS_BUCKETS_MS.length : DEFAULT_METRICS_BUCKETS_MS.indexOf(le)];
    expect(at(5)).toEqual({
      traceId: traceOf(2),
      spanId: '0000000000000002',
      valueSeconds: 0.004,
      timestampS: 1_795_000_000.2,
    });
    expect(at(50)?.traceId).toBe(traceOf(4));
    expect(at(null)).toMatchObject({ traceId: traceOf(5), valueSeconds: 20 });
    expect(ping.filter((e) => e !== null)).toHaveLength(3);
    // service time (half the latency) has its own buckets
    const service = snap.serviceTime.find((l) => l.method === 'ping')!.exemplars!;
    expect(service[DEFAULT_METRICS_BUCKETS_MS.indexOf(2)]).toMatchObject({ traceId: traceOf(2), valueSeconds: 0.002 });
    expect(snap.latency.find((l) => l.method === 'echo')!.exemplars![0]?.traceId).toBe(traceOf(6));
    // other bounds: the latest of the kept requests that fall in each
    const coarse = read(recorder, [100]).latency.find((l) => l.method === 'ping')!.exemplars!;
    expect(coarse.map((e) => e?.traceId)).toEqual([traceOf(2), traceOf(5)]);
  });

  it('are absent without a traced request, or without the run clock', () => {
    const recorder = new Recorder(dims, { rateLimit: null });
    recorder.record(request(1, 3, 100, 0));
    expect(read(recorder, DEFAULT_METRICS_BUCKETS_MS).latency[0]).not.toHaveProperty('exemplars');
    recorder.record(request(2, 3, 100));
    expect(read(recorder, DEFAULT_METRICS_BUCKETS_MS, Number.NaN).latency[0]).not.toHaveProperty('exemplars');
  });

  it('sum to the later exemplar of each bucket (worker threads, capacity steps)', () => {
    const e = (traceId: string, timestampS: number) => ({
      traceId,
      spanId: '0'.repeat(16),
      valueSeconds: 0.001,
      timestampS,
    });
    const a = {
      ...snapshot(1),
      latency: [{ ...snapshot(1).latency[0]!, exemplars: [e('a1', 10), e('a2', 30), null] }],
    };
    const b = { ...snapshot(2), latency: [{ ...snapshot(2).latency[0]!, exemplars: [e('b1', 20), e('b2', 5), null] }] };
    const sum = sumMetricsSnapshots([a, b, snapshot(3)])!;
    expect(sum.latency[0]!.exemplars!.map((x) => x?.traceId ?? null)).toEqual(['b1', 'a2', null]);
    expect(sum.latency[0]!.buckets.count).toBe(18);
    expect(sum.serviceTime[0]).not.toHaveProperty('exemplars');
  });
});
