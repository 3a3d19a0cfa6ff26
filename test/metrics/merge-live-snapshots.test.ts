import { describe, expect, it } from 'vitest';
import { mergeLiveSnapshots } from '../../src/metrics/merge-live-snapshots.ts';
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
    const a = { ...part(['c1']), skippedByWorkload: { checkout: { 'client backing off': 2 }, browse: { 'no token': 1 } } };
    const b = { ...part(['c2']), skippedByWorkload: { checkout: { 'client backing off': 3, 'no token': 1 } } };
    expect(mergeLiveSnapshots([a, b], empty, ['c1', 'c2']).skippedByWorkload).toEqual({
      checkout: { 'client backing off': 5, 'no token': 1 },
      browse: { 'no token': 1 },
    });
    expect(mergeLiveSnapshots([part(['c1']), part(['c2'])], empty, ['c1', 'c2'])).not.toHaveProperty('skippedByWorkload');
  });

  it('shows the empty figures before any worker reports', () => {
    const empty = new Recorder(dims(['c1']), { rateLimit: null }).snapshot(0);
    expect(mergeLiveSnapshots([], empty, ['c1'])).toBe(empty);
  });
});
