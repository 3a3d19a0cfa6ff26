import { describe, expect, it } from 'vitest';
import { mergeLiveSnapshots, sumLoadGauges } from '../../src/metrics/merge-live-snapshots.ts';
import { Recorder } from '../../src/metrics/recorder.ts';
import type { Sample } from '../../src/metrics/sample.ts';

const dims = (clients: string[]) => ({ methods: ['ping'], phases: ['load'], clients });

function sample(clientIndex: number, latencyUs: number, doneAtMs: number, outcome = 'success'): Sample {
  return {
    methodIndex: 0,
    phaseIndex: 0,
    clientIndex,
    outcome,
    status: outcome === 'success' ? 200 : 500,
    sentAtMs: doneAtMs - latencyUs / 1000,
    doneAtMs,
    latencyUs,
    serviceUs: latencyUs,
    lagUs: -1,
    retryAfterS: -1,
    backoffWaitedMs: -1,
    backoffRetryAfterS: -1,
    detail: outcome === 'success' ? '' : 'boom',
  };
}

describe('mergeLiveSnapshots', () => {
  it('adds counts, keeps the highest percentiles and orders client rows like the run', () => {
    const a = new Recorder(dims(['c1', 'c3']), { rateLimit: null });
    const b = new Recorder(dims(['c2']), { rateLimit: null });
    for (let i = 0; i < 10; i++) a.record(sample(i % 2, 1000, 500 + i));
    for (let i = 0; i < 5; i++) b.record(sample(0, 9000, 1500 + i));
    b.record(sample(0, 2000, 1600, 'http:500'));
    const empty = new Recorder(dims(['c1', 'c2', 'c3']), { rateLimit: null }).snapshot(2000);
    const merged = mergeLiveSnapshots([a.snapshot(2000), b.snapshot(2000)], empty, ['c1', 'c2', 'c3']);
    expect(merged).toMatchObject({ requests: 16, success: 15, errors: 1, outcomes: { success: 15, 'http:500': 1 } });
    expect(merged.latencyMs.p99).toBe(b.snapshot(2000).latencyMs.p99);
    expect(merged.clients.map((c) => [c.id, c.sent])).toEqual([
      ['c1', 5],
      ['c2', 6],
      ['c3', 5],
    ]);
    expect(merged.timeline.find((row) => row.t === 0)?.requests).toBe(10);
    expect(merged.timeline.find((row) => row.t === 1)?.requests).toBe(6);
    expect(merged.recentErrors.map((e) => e.outcome)).toEqual(['http:500']);
  });

  it("adds the workers' skipped arrivals by workload, and says none while no worker has any", () => {
    const part = (clients: string[]) => new Recorder(dims(clients), { rateLimit: null }).snapshot(1000);
    const empty = part(['c1', 'c2']);
    const a = {
      ...part(['c1']),
      skippedByWorkload: { checkout: { 'client backing off': 2 }, browse: { 'no token': 1 } },
    };
    const b = { ...part(['c2']), skippedByWorkload: { checkout: { 'client backing off': 3, 'no token': 1 } } };
    expect(mergeLiveSnapshots([a, b], empty, ['c1', 'c2']).skippedByWorkload).toEqual({
      checkout: { 'client backing off': 5, 'no token': 1 },
      browse: { 'no token': 1 },
    });
    expect(mergeLiveSnapshots([part(['c1']), part(['c2'])], empty, ['c1', 'c2'])).not.toHaveProperty(
      'skippedByWorkload',
    );
  });

  it('shows the empty figures before any worker reports', () => {
    const empty = new Recorder(dims(['c1']), { rateLimit: null }).snapshot(0);
    expect(mergeLiveSnapshots([], empty, ['c1'])).toBe(empty);
  });

  it('adds workload rows by name in the run order, keeping the highest p50, p99 and lag', () => {
    const two = (clients: string[]) => ({
      methods: ['ping'],
      phases: ['browse/load', 'orders/load'],
      clients,
      workloads: ['browse', 'orders'],
      phaseWorkloads: [0, 1],
    });
    const a = new Recorder(two(['c1']), { rateLimit: null });
    const b = new Recorder(two(['c2']), { rateLimit: null });
    for (let i = 0; i < 4; i++) a.record({ ...sample(0, 1000, 1500 + i), lagUs: 200 });
    for (let i = 0; i < 3; i++) b.record({ ...sample(0, 5000, 1500 + i), lagUs: 900 });
    b.record({ ...sample(0, 7000, 1600, 'error:rate_limit_exceeded'), phaseIndex: 1 });
    const empty = new Recorder(two(['c1', 'c2']), { rateLimit: null }).snapshot(2000);
    const merged = mergeLiveSnapshots([a.snapshot(2000), b.snapshot(2000)], empty, ['c1', 'c2']);
    expect(merged.workloads.map((w) => [w.name, w.requests, w.success, w.rateLimited, w.rpsLastSecond])).toEqual([
      ['browse', 7, 7, 0, 7],
      ['orders', 1, 0, 1, 1],
    ]);
    const browse = merged.workloads[0]!;
    expect(browse.latencyMs.p99).toBe(b.snapshot(2000).workloads[0]!.latencyMs.p99);
    expect(browse.scheduleLagP99Ms).toBe(b.snapshot(2000).workloads[0]!.scheduleLagP99Ms);
    expect(browse.goodput).toBe(7);
    expect(merged.workloads[1]!.scheduleLagP99Ms).toBeNull();
  });

  it('sums the load gauges of workers side by side, workload by workload', () => {
    expect(sumLoadGauges([])).toBeNull();
    expect(
      sumLoadGauges([
        { offeredPerS: [20, 0, 3], replayReleased: [0, 0, 40], inFlight: 2 },
        { offeredPerS: [20, 0, 2], replayReleased: [0, 0, 35], inFlight: 1 },
      ]),
    ).toEqual({ offeredPerS: [40, 0, 5], replayReleased: [0, 0, 75], inFlight: 3 });
  });
});
