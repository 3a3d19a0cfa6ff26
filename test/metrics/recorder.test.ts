import { describe, expect, it } from 'vitest';
import { outcomeClass } from '../../src/api/outcome.ts';
import { createLatencyHistogram, decodeHistogram, percentilesMs, recordUs } from '../../src/metrics/hdr.ts';
import { MAX_OUTCOME_KEYS, OUTCOME_OTHER } from '../../src/metrics/outcome-table.ts';
import { MAX_SKIP_REASONS, Recorder, SNAPSHOT_SECONDS } from '../../src/metrics/recorder.ts';
import type { Sample } from '../../src/metrics/sample.ts';
import { DIMS, recorderSamples, nearestRank, sample, tokenSample } from '../support/recorder-fixtures.ts';

const RATE_LIMIT = { limit: 100, windowMs: 10_000, policy: 'honour' } as const;

/** Record in completion order, as the driver does. */
function recorderWith(samples: readonly Sample[]): Recorder {
  const recorder = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
  for (const s of [...samples].sort((a, b) => a.doneAtMs - b.doneAtMs)) recorder.record(s);
  return recorder;
}

/**
 * HDR reads a value off its bucket: the highest value of the bucket (lowest for min) of the
 * rounded µs value (at least 1); buckets are at most 1/half of the value wide (half = 1024 at 3 significant
 * digits, 16 for the compact per-client histograms).
 */
function expectHdrClose(actualMs: number, valueUs: number, half: number, lowest = false): void {
  const actualUs = actualMs * 1000;
  const exactUs = Math.max(valueUs, 1); // recordUs records values below 1 µs as 1 µs
  if (lowest) {
    expect(actualUs).toBeLessThanOrEqual(exactUs + 0.5 + 1e-6);
    expect(actualUs).toBeGreaterThanOrEqual((exactUs - 0.5) * (1 - 1 / half) - 1e-6);
  } else {
    expect(actualUs).toBeGreaterThanOrEqual(exactUs - 0.5 - 1e-6);
    expect(actualUs).toBeLessThanOrEqual((exactUs + 0.5) * (1 + 1 / half) + 1e-6);
  }
}

function expectPercentilesOf(encoded: string, values: readonly number[], half: number): void {
  const sorted = [...values].sort((a, b) => a - b);
  const h = decodeHistogram(encoded);
  const p = percentilesMs(h);
  expect(h.totalCount).toBe(values.length);
  expectHdrClose(p.min, sorted[0]!, half, true);
  for (const [key, q] of [
    ['p50', 50],
    ['p90', 90],
    ['p99', 99],
    ['p999', 99.9],
    ['max', 100],
  ] as const)
    expectHdrClose(p[key], nearestRank(sorted, q), half);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  expect(Math.abs(p.mean * 1000 - mean)).toBeLessThanOrEqual(mean / half + 1);
}

const countBy = <T>(items: readonly T[], key: (item: T) => string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};

describe('Recorder', () => {
  const samples = recorderSamples(10_000, 42);
  const data = recorderWith(samples).serialize();

  it('counts every sample by outcome, overall and per method, phase and client', () => {
    expect(data.overall.outcomes).toEqual(countBy(samples, (s) => s.outcome));
    DIMS.methods.forEach((name, i) =>
      expect(data.byMethod[name]!.outcomes).toEqual(
        countBy(
          samples.filter((s) => s.methodIndex === i),
          (s) => s.outcome,
        ),
      ),
    );
    DIMS.phases.forEach((name, i) =>
      expect(data.byPhase[name]!.outcomes).toEqual(
        countBy(
          samples.filter((s) => s.phaseIndex === i),
          (s) => s.outcome,
        ),
      ),
    );
    DIMS.clients.forEach((name, i) =>
      expect(data.byClient[name]!.outcomes).toEqual(
        countBy(
          samples.filter((s) => s.clientIndex === i),
          (s) => s.outcome,
        ),
      ),
    );
  });

  it('keeps one cell per phase × method with its outcome counts and histograms (what live exporters read)', () => {
    const recorder = recorderWith(samples);
    const seen = new Set<string>();
    recorder.forEachCell(({ phaseIndex, methodIndex, stats }) => {
      seen.add(`${phaseIndex}/${methodIndex}`);
      const subset = samples.filter((s) => s.phaseIndex === phaseIndex && s.methodIndex === methodIndex);
      const counts: Record<string, number> = {};
      stats.outcomeCounts.forEach((n, i) => {
        if (n > 0) counts[recorder.outcomeKeys[i]!] = n;
      });
      expect(counts).toEqual(countBy(subset, (s) => s.outcome));
      expect(stats.requests).toBe(subset.length);
      expect(stats.latency.totalCount).toBe(subset.length);
      expect(stats.serviceTime.totalCount).toBe(subset.length);
    });
    const expected = new Set(samples.map((s) => `${s.phaseIndex}/${s.methodIndex}`));
    expect(seen).toEqual(expected);
    expect(recorder.dimensions).toEqual(DIMS);
  });

  it('keeps latency and service-time distributions within HDR precision, per dimension', () => {
    const check = (encoded: { latency: string; serviceTime: string }, subset: readonly Sample[], half: number) => {
      expectPercentilesOf(
        encoded.latency,
        subset.map((s) => s.latencyUs),
        half,
      );
      expectPercentilesOf(
        encoded.serviceTime,
        subset.map((s) => s.serviceUs),
        half,
      );
    };
    check(data.overall, samples, 1024);
    DIMS.methods.forEach((name, i) =>
      check(
        data.byMethod[name]!,
        samples.filter((s) => s.methodIndex === i),
        1024,
      ),
    );
    DIMS.phases.forEach((name, i) =>
      check(
        data.byPhase[name]!,
        samples.filter((s) => s.phaseIndex === i),
        1024,
      ),
    );
    DIMS.clients.forEach((name, i) =>
      check(
        data.byClient[name]!,
        samples.filter((s) => s.clientIndex === i),
        16,
      ),
    );
    for (const [outcome, pair] of Object.entries(data.byOutcome))
      check(
        pair,
        samples.filter((s) => s.outcome === outcome),
        1024,
      );
    expectPercentilesOf(
      data.scheduleLag,
      samples.map((s) => s.lagUs),
      1024,
    );
    DIMS.phases.forEach((name, i) =>
      expectPercentilesOf(
        data.scheduleLagByPhase[name]!,
        samples.filter((s) => s.phaseIndex === i).map((s) => s.lagUs),
        1024,
      ),
    );
  });

  it('has one timeline row per second: counts by class and that second’s p50/p99', () => {
    const lastSecond = Math.max(...samples.map((s) => Math.floor(s.doneAtMs / 1000)));
    expect(data.timeline).toHaveLength(lastSecond + 1);
    for (const row of data.timeline) {
      const inSecond = samples.filter((s) => Math.floor(s.doneAtMs / 1000) === row.t);
      const h = createLatencyHistogram();
      for (const s of inSecond) recordUs(h, s.latencyUs);
      const byClass = countBy(inSecond, (s) => outcomeClass(s.outcome));
      const { p50, p99 } = percentilesMs(h);
      expect(row).toEqual({
        t: row.t,
        requests: inSecond.length,
        success: byClass.success ?? 0,
        rateLimited: byClass.rate_limited ?? 0,
        errors: byClass.error ?? 0,
        p50,
        p99,
      });
    }
  });

  it('leaves the schedule-lag histogram empty in the closed model (lagUs -1)', () => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    for (let i = 0; i < 10; i++) recorder.record(sample({ lagUs: -1 }));
    expect(decodeHistogram(recorder.serialize().scheduleLag).totalCount).toBe(0);
    expect(recorder.serialize().scheduleLagByPhase).toEqual({});
    expect(recorder.snapshot(1000).scheduleLagMs).toBeNull();
  });

  it('serializes only dimensions with traffic, and no ledger without a contract', () => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    recorder.record(sample({ methodIndex: 1, clientIndex: 2 }));
    const d = recorder.serialize();
    expect([Object.keys(d.byMethod), Object.keys(d.byClient), d.ledger]).toEqual([
      [DIMS.methods[1]],
      [DIMS.clients[2]],
      null,
    ]);
  });

  it('serializes fresh figures after more samples, and earlier data stays as it was', () => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    const method = DIMS.methods[0]!;
    recorder.record(sample());
    const first = recorder.serialize();
    expect(recorder.serialize()).toEqual(first);
    recorder.record(sample({ latencyUs: 99_000 }));
    const second = recorder.serialize();
    expect([
      decodeHistogram(second.byMethod[method]!.latency).totalCount,
      second.byMethod[method]!.outcomes.success,
      second.byOutcome.success!.latency,
    ]).toEqual([2, 2, second.byMethod[method]!.latency]);
    expect(first.byMethod[method]!.outcomes.success).toBe(1);
    expect(decodeHistogram(first.byMethod[method]!.latency).totalCount).toBe(1);
  });

  it('counts beyond the cap of distinct outcome keys as error:other', () => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    const invented = 300;
    for (let i = 0; i < invented; i++) recorder.record(sample({ outcome: `error:invented_${i}`, status: 500 }));
    recorder.record(sample());
    const outcomes = recorder.serialize().overall.outcomes;
    expect(Object.keys(outcomes).length).toBeLessThanOrEqual(MAX_OUTCOME_KEYS + 1);
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(invented + 1);
    expect(outcomes[OUTCOME_OTHER]).toBe(invented - (MAX_OUTCOME_KEYS - 1));
    expect(outcomes.success).toBe(1);
  });

  it.each([
    // without steps in the dimensions, a sample's step is its method
    ['step', { methodIndex: DIMS.methods.length }],
    ['phase', { phaseIndex: -1 }],
    ['client', { clientIndex: DIMS.clients.length }],
  ])('rejects a sample whose %s index is outside the dimensions (a driver bug)', (what, bad) => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    expect(() => recorder.record(sample(bad))).toThrow(new RegExp(`${what} index`));
  });

  it('counts skipped arrivals by reason, at most MAX_SKIP_REASONS of them', () => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    const reasons = ['all clients backing off', 'all clients backing off', 'max in-flight reached'];
    for (const r of reasons) recorder.recordSkipped(r);
    expect(recorder.serialize().skipped).toEqual(countBy(reasons, (r) => r));
    for (let i = 0; i < MAX_SKIP_REASONS * 2; i++) recorder.recordSkipped(`reason ${i}`);
    const skipped = recorder.serialize().skipped;
    expect(Object.keys(skipped)).toHaveLength(MAX_SKIP_REASONS + 1);
    expect(Object.values(skipped).reduce((a, b) => a + b, 0)).toBe(reasons.length + MAX_SKIP_REASONS * 2);
  });

  it('keeps token requests apart from the API figures', () => {
    const recorder = new Recorder(DIMS, { rateLimit: null });
    const tokens = [
      tokenSample({ latencyUs: 4000 }),
      tokenSample({ latencyUs: 6000 }),
      tokenSample({ outcome: 'error:invalid_client', detail: 'bad secret', doneAtMs: 7 }),
    ];
    for (const t of tokens) recorder.recordToken(t);
    const d = recorder.serialize();
    expect(d.tokens.outcomes).toEqual(countBy(tokens, (t) => t.outcome));
    expect(decodeHistogram(d.tokens.latency).totalCount).toBe(tokens.length);
    expect(decodeHistogram(d.overall.latency).totalCount).toBe(0);
    expect(d.recentErrors).toEqual([
      { source: 'token', outcome: 'error:invalid_client', detail: 'bad secret', count: 1, firstAtMs: 7, lastAtMs: 7 },
    ]);
    const snap = recorder.snapshot(10);
    expect([snap.tokens.requests, snap.tokens.failures, snap.requests]).toEqual([tokens.length, 1, 0]);
  });
});

describe('Recorder.serializeGradually (a checkpoint while the load runs)', () => {
  it('gives what serialize gives, as of its call, though the load goes on recording while it encodes', async () => {
    const samples = [...recorderSamples(6000, 9, 30)].sort((a, b) => a.doneAtMs - b.doneAtMs);
    const [before, after] = [samples.slice(0, 4000), samples.slice(4000)];
    const gradual = recorderWith(before);
    gradual.recordToken(tokenSample({ latencyUs: 4500 }));
    const pending = gradual.serializeGradually();
    for (const s of after) gradual.record(s); // recorded before its slices have all been encoded
    const atOnce = recorderWith(before);
    atOnce.recordToken(tokenSample({ latencyUs: 4500 }));
    const expected = atOnce.serialize();
    const data = await pending;
    expect(data).toEqual(expected);
    expect(JSON.stringify(data)).not.toContain('deferred');
    // The encodings kept by serialize are not disturbed: the next one includes the later samples.
    expect(decodeHistogram(gradual.serialize().overall.latency).totalCount).toBe(samples.length);
  });

  it("gives it again at later checkpoints, which copy into the first one's histograms", async () => {
    const samples = [...recorderSamples(6000, 9, 30)].sort((a, b) => a.doneAtMs - b.doneAtMs);
    const gradual = new Recorder(DIMS, { rateLimit: RATE_LIMIT });
    let recorded = 0;
    // The second checkpoint finds one new sample only; the later ones, thousands.
    for (const upTo of [1500, 1500, 3200, 6000]) {
      for (; recorded < upTo; recorded++) gradual.record(samples[recorded]!);
      const asOf = recorded;
      const pending = gradual.serializeGradually();
      // Recorded while the checkpoint encodes: not in it.
      if (recorded < samples.length) gradual.record(samples[recorded++]!);
      expect(await pending).toEqual(recorderWith(samples.slice(0, asOf)).serialize());
      // The copies it kept for the next checkpoint are not what the recorder goes on recording into.
      expect(gradual.serialize()).toEqual(recorderWith(samples.slice(0, recorded)).serialize());
    }
  });
});

describe('Recorder.snapshot', () => {
  const samples = recorderSamples(5000, 7, 30);
  const recorder = recorderWith(samples);
  const nowMs = 25_500; // mid-run: second 25 is the current, partial one
  const snap = recorder.snapshot(nowMs);
  const doneBy = (s: Sample, t: number) => Math.floor(s.doneAtMs / 1000) === t;

  it('has cumulative counts and percentiles equal to the serialized data', () => {
    const d = recorder.serialize();
    const byClass = countBy(samples, (s) => outcomeClass(s.outcome));
    expect([snap.requests, snap.success, snap.rateLimited, snap.errors]).toEqual([
      samples.length,
      byClass.success,
      byClass.rate_limited,
      byClass.error,
    ]);
    expect(snap.outcomes).toEqual(d.overall.outcomes);
    expect(snap.latencyMs).toEqual(percentilesMs(decodeHistogram(d.overall.latency)));
    expect(snap.serviceTimeMs).toEqual(percentilesMs(decodeHistogram(d.overall.serviceTime)));
    expect(snap.scheduleLagMs).toEqual(percentilesMs(decodeHistogram(d.scheduleLag)));
  });

  it('has rps over the last whole second and the last 10 whole seconds', () => {
    expect(snap.rpsLastSecond).toBe(samples.filter((s) => doneBy(s, 24)).length);
    const last10 = samples.filter((s) => s.doneAtMs >= 15_000 && s.doneAtMs < 25_000).length;
    expect(snap.rpsLast10s).toBeCloseTo(last10 / 10, 9);
    expect(recorder.snapshot(0).rpsLast10s).toBe(0);
    expect(recorder.snapshot(3000).rpsLast10s).toBeCloseTo(samples.filter((s) => s.doneAtMs < 3000).length / 3, 9);
  });

  it('shows the last seconds up to now, zero rows after the last completion', () => {
    const late = recorder.snapshot(200_000);
    expect(late.timeline).toHaveLength(SNAPSHOT_SECONDS);
    expect(late.timeline.at(-1)).toMatchObject({ t: 200, requests: 0 });
    const lastRow = snap.timeline.at(-1)!;
    expect(snap.timeline[0]!.t).toBe(0);
    expect(snap.timeline.at(-1)!.t).toBe(Math.max(25, Math.floor(Math.max(...samples.map((s) => s.doneAtMs)) / 1000)));
    expect(lastRow.requests).toBe(samples.filter((s) => doneBy(s, lastRow.t)).length);
  });

  it('has one row per client with its rate-limit counters', () => {
    expect(snap.clients.map((c) => c.id)).toEqual(DIMS.clients);
    snap.clients.forEach((row, i) => {
      const own = samples.filter((s) => s.clientIndex === i);
      const refused = own.filter((s) => s.status === 429);
      const admitted = own.filter((s) => s.status !== 429 && s.status !== 401 && s.status !== 0);
      const lastRefusal = [...refused].sort((a, b) => a.doneAtMs - b.doneAtMs).at(-1);
      expect(row).toEqual({
        id: DIMS.clients[i],
        sent: own.length,
        admitted: admitted.length,
        refused: refused.length,
        admittedInWindow: admitted.filter(
          (s) => Math.floor(s.sentAtMs / RATE_LIMIT.windowMs) === Math.floor(nowMs / RATE_LIMIT.windowMs),
        ).length,
        lastRetryAfterS: lastRefusal?.retryAfterS ?? null,
        lastRetryAfterAtMs: lastRefusal?.doneAtMs ?? null,
      });
    });
  });

  it('lists distinct recent errors, most recent first, counted', () => {
    const failures = samples.filter((s) => outcomeClass(s.outcome) === 'error');
    expect(snap.recentErrors.map((e) => [e.outcome, e.count]).sort()).toEqual(
      Object.entries(countBy(failures, (s) => s.outcome)).sort(),
    );
    const lasts = snap.recentErrors.map((e) => e.lastAtMs);
    expect(lasts).toEqual([...lasts].sort((a, b) => b - a));
  });

  it('is a copy: later samples do not change a snapshot already taken', () => {
    const before = JSON.stringify(snap);
    recorder.record(sample({ doneAtMs: 25_100, outcome: 'http:502', status: 502 }));
    expect(JSON.stringify(snap)).toBe(before);
  });
});

describe('Recorder.snapshot: one row per workload', () => {
  const nowMs = 25_500;
  // What has completed by now: a snapshot never sees completions from its future.
  const samples = recorderSamples(5000, 11, 30).filter((s) => s.doneAtMs < nowMs);

  it('with one workload, its row is the overall figures (goodput: every success without a bound)', () => {
    const snap = recorderWith(samples).snapshot(nowMs);
    expect(snap.workloads).toEqual([
      {
        name: 'default',
        requests: snap.requests,
        success: snap.success,
        rateLimited: snap.rateLimited,
        errors: snap.errors,
        rpsLastSecond: snap.rpsLastSecond,
        latencyMs: { p50: snap.latencyMs.p50, p99: snap.latencyMs.p99 },
        scheduleLagP99Ms: snap.scheduleLagMs!.p99,
        goodput: snap.success,
        skipped: 0,
      },
    ]);
  });

  // Phase 0 ("warmup") is workload "browse", phase 1 ("steady") workload "orders".
  const dims = { ...DIMS, workloads: ['browse', 'orders'], phaseWorkloads: [0, 1], goodputBoundMs: 50 };
  const recorder = new Recorder(dims, { rateLimit: RATE_LIMIT });
  for (const s of [...samples].sort((a, b) => a.doneAtMs - b.doneAtMs)) recorder.record(s);
  recorder.recordSkipped('max in-flight reached', 3, 1);
  const snap = recorder.snapshot(nowMs);
  const data = recorder.serialize();

  it.each([
    ['browse', 0],
    ['orders', 1],
  ])('with several, %s has its own counts, rate, percentiles, lag, goodput and skips', (name, phase) => {
    const own = samples.filter((s) => s.phaseIndex === phase);
    const row = snap.workloads.find((w) => w.name === name)!;
    const byClass = countBy(own, (s) => outcomeClass(s.outcome));
    expect([row.requests, row.success, row.rateLimited, row.errors]).toEqual([
      own.length,
      byClass.success ?? 0,
      byClass.rate_limited ?? 0,
      byClass.error ?? 0,
    ]);
    expect(row.rpsLastSecond).toBe(own.filter((s) => Math.floor(s.doneAtMs / 1000) === 24).length);
    const latency = percentilesMs(decodeHistogram(data.byWorkload![name]!.latency));
    expect(row.latencyMs).toEqual({ p50: latency.p50, p99: latency.p99 });
    expect(row.scheduleLagP99Ms).toBe(percentilesMs(decodeHistogram(data.scheduleLagByWorkload![name]!)).p99);
    // Goodput: successes within the 50 ms bound (HDR: the bucket holding the bound counts whole).
    const fast = own.filter((s) => outcomeClass(s.outcome) === 'success' && s.latencyUs <= 50_000).length;
    expect(row.goodput).toBeGreaterThanOrEqual(fast);
    expect(row.goodput).toBeLessThanOrEqual(
      own.filter((s) => outcomeClass(s.outcome) === 'success' && s.latencyUs <= 50_100).length,
    );
    expect(row.skipped).toBe(phase === 1 ? 3 : 0);
  });
});
