import { describe, expect, it } from 'vitest';
import { outcomeClass } from '../../src/api/outcome.ts';
import { createLatencyHistogram, percentilesMs, recordUs } from '../../src/metrics/hdr.ts';
import { MAX_TIMELINE_SECONDS, Timeline } from '../../src/metrics/timeline.ts';

interface Completion {
  readonly doneAtMs: number;
  readonly latencyUs: number;
  readonly outcome: string;
}

/** The expected row of second t, computed from the completions independently of the Timeline. */
function expectedRow(completions: readonly Completion[], t: number) {
  const inSecond = completions.filter((c) => Math.floor(c.doneAtMs / 1000) === t);
  const h = createLatencyHistogram();
  for (const c of inSecond) recordUs(h, c.latencyUs);
  const count = (cls: string) => inSecond.filter((c) => outcomeClass(c.outcome) === cls).length;
  const p = percentilesMs(h);
  return {
    t,
    requests: inSecond.length,
    success: count('success'),
    rateLimited: count('rate_limited'),
    errors: count('error'),
    p50: p.p50,
    p99: p.p99,
  };
}

function completions(seconds: readonly number[]): Completion[] {
  const outcomes = ['success', 'success', 'error:rate_limit_exceeded', 'http:502'];
  return seconds.flatMap((s, k) =>
    Array.from({ length: 50 + k * 10 }, (_, i) => ({
      doneAtMs: s * 1000 + i * (999 / (50 + k * 10)),
      latencyUs: 1000 + ((i * 7919) % 40_000) + s * 100,
      outcome: outcomes[i % 4]!,
    })),
  );
}

describe('Timeline', () => {
  it.each([
    [[0, 1, 2]], // consecutive seconds
    [[0, 3, 4]], // a gap: seconds 1 and 2 are zero rows (a stall must show)
    [[2]], // traffic starting late: rows from t = 0 anyway
  ])('has one row per second with counts and p50/p99 of that second: seconds %j', (seconds) => {
    const all = completions(seconds);
    const timeline = new Timeline();
    for (const c of all) timeline.record(c.doneAtMs, c.latencyUs, outcomeClass(c.outcome));
    const last = Math.max(...seconds);
    expect(timeline.rowsFrom(0)).toEqual(Array.from({ length: last + 1 }, (_, t) => expectedRow(all, t)));
  });

  it('pads zero rows up to the given second and starts where asked', () => {
    const timeline = new Timeline();
    timeline.record(500, 2000, 'success');
    const rows = timeline.rowsFrom(0, 3);
    expect(rows.map((r) => [r.t, r.requests])).toEqual([
      [0, 1],
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
    expect(timeline.rowsFrom(2, 3).map((r) => r.t)).toEqual([2, 3]);
  });

  it('counts a late completion in its own second without changing that row’s percentiles', () => {
    const timeline = new Timeline();
    timeline.record(100, 1000, 'success');
    timeline.record(1100, 5000, 'success');
    const before = timeline.rowsFrom(0)[0]!;
    timeline.record(900, 900_000, 'error');
    const after = timeline.rowsFrom(0)[0]!;
    expect(after).toEqual({ ...before, requests: before.requests + 1, errors: before.errors + 1 });
  });

  it.each([
    [-1], // before the origin
    [Number.NaN], // garbage
    [MAX_TIMELINE_SECONDS * 1000], // a wall-clock time by mistake: no row per second since 1970
  ])('ignores a completion at %s ms', (doneAtMs) => {
    const timeline = new Timeline();
    timeline.record(doneAtMs, 1000, 'success');
    expect(timeline.length).toBe(0);
  });

  it('reports requests of a second, 0 outside the rows', () => {
    const timeline = new Timeline();
    for (let i = 0; i < 7; i++) timeline.record(1000 + i, 1000, 'success');
    expect([timeline.requestsAt(0), timeline.requestsAt(1), timeline.requestsAt(2), timeline.requestsAt(-1)]).toEqual([
      0, 7, 0, 0,
    ]);
  });
});
