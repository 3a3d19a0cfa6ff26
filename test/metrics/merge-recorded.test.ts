import { describe, expect, it } from 'vitest';
import { decodeHistogram, percentilesMs } from '../../src/metrics/hdr.ts';
import { mergeRecordedData } from '../../src/metrics/merge-recorded.ts';
import { MAX_OUTCOME_KEYS, OUTCOME_OTHER } from '../../src/metrics/outcome-table.ts';
import { emptyRecordedData, type RecordedData } from '../../src/metrics/recorded-data.ts';
import { Recorder } from '../../src/metrics/recorder.ts';
import type { Sample } from '../../src/metrics/sample.ts';
import { DIMS, recorderSamples, sample } from '../support/recorder-fixtures.ts';

const RATE_LIMIT = { limit: 100, windowMs: 10_000, policy: 'honour' } as const;

function record(samples: readonly Sample[]): RecordedData {
  const recorder = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
  for (const s of [...samples].sort((a, b) => a.doneAtMs - b.doneAtMs)) recorder.record(s);
  return recorder.serialize();
}

/** The figures a reader takes from data: counts, percentiles of every histogram, rows, ledger. */
function figures(d: RecordedData) {
  const read = (encoded: string) => ({
    count: decodeHistogram(encoded).totalCount,
    ...percentilesMs(decodeHistogram(encoded)),
  });
  const pairs = (r: Readonly<Record<string, { latency: string; serviceTime: string }>>) =>
    Object.fromEntries(
      Object.entries(r).map(([k, p]) => [k, { latency: read(p.latency), serviceTime: read(p.serviceTime) }]),
    );
  const outcomes = (r: Readonly<Record<string, { outcomes: Readonly<Record<string, number>> }>>) =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.outcomes]));
  return {
    overall: {
      latency: read(d.overall.latency),
      serviceTime: read(d.overall.serviceTime),
      outcomes: d.overall.outcomes,
    },
    lag: read(d.scheduleLag),
    lagByPhase: Object.fromEntries(
      Object.entries(d.scheduleLagByPhase).map(([phase, encoded]) => [phase, read(encoded)]),
    ),
    histograms: [pairs(d.byMethod), pairs(d.byPhase), pairs(d.byClient), pairs(d.byOutcome)],
    outcomes: [outcomes(d.byMethod), outcomes(d.byPhase), outcomes(d.byClient)],
    lastAtMs: d.lastAtMs,
    exemplars: d.exemplars,
    // Announced windows survive only a split by client (a time split withholds them: see the tests).
    ledgerClients: Object.fromEntries(
      Object.entries(d.ledger?.clients ?? {}).map(([id, c]) => [
        id,
        { ...c, observations: c.observations.length, windows: null, windowsDropped: null, windowsWithheld: null },
      ]),
    ),
  };
}

describe('mergeRecordedData', () => {
  const samples = recorderSamples(8000, 3, 20);

  it('of two halves split at a second boundary equals recording everything in one recorder', () => {
    const all = record(samples);
    const merged = mergeRecordedData([
      record(samples.filter((s) => s.doneAtMs < 10_000)),
      record(samples.filter((s) => s.doneAtMs >= 10_000)),
    ]);
    expect(figures(merged)).toEqual(figures(all));
    expect(merged.timeline).toEqual(all.timeline);
    // Each half saw only part of the clients' windows: they are withheld rather than misread.
    expect(Object.values(merged.ledger!.clients).every((c) => c.windowsWithheld && c.windows.length === 0)).toBe(true);
  });

  it('of two halves split by client (as worker threads would) is exact except overlapping rows’ p50/p99', () => {
    const all = record(samples);
    const even = record(samples.filter((s) => s.clientIndex % 2 === 0));
    const odd = record(samples.filter((s) => s.clientIndex % 2 === 1));
    const merged = mergeRecordedData([even, odd]);
    expect(figures(merged)).toEqual(figures(all));
    const windowsOf = (d: RecordedData) =>
      Object.fromEntries(Object.entries(d.ledger!.clients).map(([id, c]) => [id, c.windows]));
    expect(windowsOf(merged)).toEqual(windowsOf(all));
    expect(merged.timeline.map(({ p50: _p50, p99: _p99, ...counts }) => counts)).toEqual(
      all.timeline.map(({ p50: _p50, p99: _p99, ...counts }) => counts),
    );
    merged.timeline.forEach((row, t) => {
      // The largest of the parts' percentiles: never below the true one, never above any part's.
      const parts = [even.timeline[t]!, odd.timeline[t]!];
      expect(row.p50).toBe(Math.max(...parts.map((p) => p.p50)));
      expect(row.p99).toBe(Math.max(...parts.map((p) => p.p99)));
      expect(row.p50).toBeGreaterThanOrEqual(all.timeline[t]!.p50);
      expect(row.p99).toBeGreaterThanOrEqual(all.timeline[t]!.p99);
    });
  });

  it('survives a JSON round trip unchanged (worker messages, files)', () => {
    const data = record(samples.slice(0, 2000));
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  });

  it('of nothing is the empty data; of one part is that part', () => {
    const one = record(samples.slice(0, 100));
    expect(mergeRecordedData([])).toEqual(emptyRecordedData());
    expect(mergeRecordedData([one])).toBe(one);
  });

  it('folds outcome keys past the cap into error:other, keeping every count', () => {
    const part = (offset: number) => {
      const recorder = new Recorder(DIMS, { rateLimit: null });
      for (let i = 0; i < 50; i++) recorder.record(sample({ outcome: `error:code_${offset + i}`, status: 500 }));
      recorder.record(sample());
      return recorder.serialize();
    };
    const merged = mergeRecordedData([part(0), part(1000)]);
    const outcomes = merged.overall.outcomes;
    expect(Object.keys(outcomes).length).toBeLessThanOrEqual(MAX_OUTCOME_KEYS + 1);
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(102);
    expect(outcomes.success).toBe(2);
    expect(outcomes[OUTCOME_OTHER]).toBeGreaterThan(0);
    expect(Object.keys(merged.byOutcome).sort()).toEqual(Object.keys(outcomes).sort());
    const perOutcome = Object.values(merged.byOutcome).map((p) => decodeHistogram(p.latency).totalCount);
    expect(perOutcome.reduce((a, b) => a + b, 0)).toBe(102);
    expect(merged.byMethod[DIMS.methods[0]!]!.outcomes).toEqual(outcomes);
  });

  it('adds skip counts and keeps the later of the parts’ last completion', () => {
    const a = { ...emptyRecordedData(), skipped: { 'all clients backing off': 2 }, lastAtMs: 5 };
    const b = {
      ...emptyRecordedData(),
      skipped: { 'all clients backing off': 3, 'max in-flight reached': 1 },
      lastAtMs: 9,
    };
    const merged = mergeRecordedData([a, b]);
    expect([merged.skipped, merged.lastAtMs]).toEqual([
      { 'all clients backing off': 5, 'max in-flight reached': 1 },
      9,
    ]);
  });
});
