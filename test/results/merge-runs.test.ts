import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { mergeRuns } from '../../src/results/merge/merge-runs.ts';
import type { CheckResult, RunResult } from '../../src/contract/result-schema.ts';
import { buildResult, fixtureSamples, makeResult, schemaProblems, type FixtureOptions } from '../support/result-fixtures.ts';

/** One run's samples, split by client into shards as if run on several machines at once. */
function shardedRun(options: FixtureOptions, shardCount: number) {
  const samples = fixtureSamples(options);
  const clients = Array.from({ length: options.clients ?? 10 }, (_, i) => `client-${i + 1}`);
  const whole = buildResult(samples, options);
  const shards = Array.from({ length: shardCount }, (_, k) => {
    const own = clients.filter((_, i) => i % shardCount === k);
    return buildResult(
      samples.filter((s) => own.includes(s.client)),
      { ...options, clientIds: own, runId: `shard-${k}` },
    );
  });
  return { whole, shards };
}

const labelled = (shards: readonly RunResult[]) => shards.map((result, i) => ({ label: `shard-${i}.json`, result }));
const options: FixtureOptions = { seed: 42, durationS: 30, rps: 120, clients: 10, errorRate: 0.02, rateLimitedRate: 0.05 };

describe('merge', () => {
  const { whole, shards } = shardedRun(options, 3);
  const merged = mergeRuns(labelled(shards));

  it('writes a valid result file', () => {
    expect(schemaProblems(merged)).toEqual([]);
  });

  it('has exactly the percentiles of the union of the samples (HDR addition)', () => {
    expect(merged.summary.latencyMs).toEqual(whole.summary.latencyMs);
    expect(merged.summary.serviceTimeMs).toEqual(whole.summary.serviceTimeMs);
    expect(merged.summary.scheduleLagMs).toEqual(whole.summary.scheduleLagMs);
    expect(merged.summary.tokens).toEqual(whole.summary.tokens);
    for (const key of ['byMethod', 'byPhase', 'byOutcome', 'byClient'] as const) {
      expect(Object.keys(merged[key]).sort()).toEqual(Object.keys(whole[key]).sort());
      for (const [name, { rps, ...exact }] of Object.entries(whole[key])) {
        const { rps: mergedRps, ...mergedExact } = merged[key][name]!;
        expect({ key, name, ...mergedExact }).toEqual({ key, name, ...exact });
        expect(mergedRps).toBeCloseTo(rps, 9);
      }
    }
  });

  it('adds the counters and takes rps over the wall-clock span', () => {
    expect(merged.summary.requests).toBe(whole.summary.requests);
    expect(merged.summary.outcomes).toEqual(whole.summary.outcomes);
    expect(merged.summary.durationS).toBe(whole.summary.durationS);
    expect(merged.summary.rps).toBeCloseTo(whole.summary.rps, 9);
    expect(merged.summary.skipped).toEqual(whole.summary.skipped);
  });

  it('keeps the histograms mergeable: merging the merged file with nothing lost', () => {
    const { whole: other, shards: moreShards } = shardedRun({ ...options, seed: 43, startedAt: '2025-03-01T10:00:00.000Z' }, 2);
    const twice = mergeRuns([{ label: 'merged.json', result: merged }, ...labelled(moreShards)]);
    expect(twice.summary.requests).toBe(whole.summary.requests + other.summary.requests);
    expect(twice.run.shards).toBe(5);
  });

  it('sums per-second counters exactly and bounds the per-second percentiles', () => {
    expect(merged.timeline.map(({ t, requests, success, rateLimited, errors }) => ({ t, requests, success, rateLimited, errors }))).toEqual(
      whole.timeline.map(({ t, requests, success, rateLimited, errors }) => ({ t, requests, success, rateLimited, errors })),
    );
    merged.timeline.forEach((row, t) => {
      const parts = shards.map((s) => s.timeline[t]!);
      // p99: the largest shard p99, never below the true p99 of the union
      expect(row.p99).toBe(Math.max(...parts.map((p) => p.p99)));
      expect(row.p99).toBeGreaterThanOrEqual(whole.timeline[t]!.p99);
      // p50: request-weighted, between the shards' p50s
      expect(row.p50).toBeGreaterThanOrEqual(Math.min(...parts.map((p) => p.p50)) - 0.001);
      expect(row.p50).toBeLessThanOrEqual(Math.max(...parts.map((p) => p.p50)) + 0.001);
    });
  });

  it('combines the rate-limit ledgers', () => {
    expect(merged.rateLimit).toEqual(whole.rateLimit);
  });

  it('describes the merged run', () => {
    expect(merged.run).toMatchObject({ kind: 'run', shards: 3, status: 'completed', startedAt: whole.run.startedAt, endedAt: whole.run.endedAt, workers: 3, profile: 'fixture' });
    expect(merged.run.id).toMatch(/^merge-[0-9a-f]{12}$/);
    expect(mergeRuns(labelled([...shards].reverse())).run.id).toBe(merged.run.id);
    expect((merged.config.clients as { id: string }[]).map((c) => c.id).sort()).toEqual((whole.config.clients as { id: string }[]).map((c) => c.id).sort());
  });
});

describe('merging shards that started at different moments', () => {
  const base = makeResult({ seed: 1, durationS: 10, clients: 2, clientIds: ['a', 'b'] });
  const late = makeResult({ seed: 2, durationS: 10, clientIds: ['c', 'd'], startedAt: '2025-03-01T10:00:02.400Z', runId: 'late' });
  const merged = mergeRuns([{ label: 'early.json', result: base }, { label: 'late.json', result: late }]);

  it('spans from the first start to the last end', () => {
    expect(merged.run.startedAt).toBe(base.run.startedAt);
    expect(merged.summary.durationS).toBeCloseTo(12.4, 9);
    expect(merged.summary.rps).toBeCloseTo((base.summary.requests + late.summary.requests) / 12.4, 9);
  });

  it('aligns timelines and rate-limit periods by wall-clock second (offset rounded to 2 s)', () => {
    expect(merged.timeline).toHaveLength(12);
    expect(merged.timeline[0]!.requests).toBe(base.timeline[0]!.requests);
    expect(merged.timeline[2]!.requests).toBe(base.timeline[2]!.requests + late.timeline[0]!.requests);
    expect(merged.timeline[11]!.requests).toBe(late.timeline[9]!.requests);
    expect(merged.rateLimit!.clients.c!.periods.map((p) => p.t)).toEqual(late.rateLimit!.clients.c!.periods.map((p) => p.t + 2));
  });
});

describe('merging checks, thresholds, status and warnings', () => {
  const check = (id: string, verdict: CheckResult['verdict'], detail: string): CheckResult => ({ id, verdict, detail, evidence: { seen: detail } });
  const a = makeResult({
    seed: 1,
    runId: 'a',
    clientIds: ['a'],
    checks: [check('envelope', 'pass', 'all envelopes'), check('ratelimit.threshold', 'pass', 'exact'), check('tls', 'skip', 'plain http')],
    thresholds: [{ expr: 'p99 < 1ms', actual: 100, ok: false }, { expr: 'requests > 4000', actual: 3000, ok: false }],
    warnings: ['generator was the bottleneck'],
  });
  const b = makeResult({ seed: 2, runId: 'b', clientIds: ['b'], checks: [check('envelope', 'pass', 'all envelopes'), check('ratelimit.threshold', 'fail', 'admitted 101')] });
  const merged = mergeRuns([
    { label: 'a.json', result: a },
    { label: 'b.json', result: { ...b, run: { ...b.run, status: 'aborted' } } },
  ]);
  const verdicts = Object.fromEntries(merged.checks.map((c) => [c.id, c.verdict]));

  it('fails a check that failed in any shard, keeping each shard’s evidence', () => {
    expect(verdicts).toEqual({ envelope: 'pass', 'ratelimit.threshold': 'fail', tls: 'skip' });
    const threshold = merged.checks.find((c) => c.id === 'ratelimit.threshold')!;
    expect(threshold.detail).toBe('admitted 101');
    expect(threshold.evidence).toEqual({
      byShard: { 'a.json': { verdict: 'pass', detail: 'exact', evidence: { seen: 'exact' } }, 'b.json': { verdict: 'fail', detail: 'admitted 101', evidence: { seen: 'admitted 101' } } },
    });
  });

  it('keeps the gravest skip class of a check every shard skipped', () => {
    const skipped = (skipClass: CheckResult['skipClass']): CheckResult => ({ ...check('payload.limit', 'skip', 'no'), skipClass });
    const shards = [
      { label: 'x.json', result: { ...a, checks: [skipped('not_applicable')] } },
      { label: 'y.json', result: { ...b, checks: [skipped('target_broken')] } },
    ];
    expect(mergeRuns(shards).checks[0]).toMatchObject({ verdict: 'skip', skipClass: 'target_broken' });
  });

  it('evaluates thresholds again on the totals', () => {
    const requests = merged.thresholds.find((t) => t.expr === 'requests > 4000')!;
    // Each shard failed it; together they pass.
    expect(requests).toEqual({ expr: 'requests > 4000', actual: a.summary.requests + b.summary.requests, ok: true });
    expect(merged.thresholds.find((t) => t.expr === 'p99 < 1ms')).toMatchObject({ actual: merged.summary.latencyMs.p99, ok: false });
  });

  it('takes the worst status and labels the shards’ warnings', () => {
    expect(merged.run.status).toBe('aborted');
    expect(merged.warnings).toEqual(['a.json: generator was the bottleneck']);
  });
});

describe('merging names without traffic', () => {
  it('keeps them with zero figures: they have no histograms to add', () => {
    const zeros = { min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
    const idle = { requests: 0, rps: 0, latencyMs: zeros, serviceTimeMs: zeros, outcomes: {} };
    const a = makeResult({ seed: 1, runId: 'a' });
    const merged = mergeRuns([
      { label: 'a.json', result: { ...a, byMethod: { ...a.byMethod, 'never.called': idle } } },
      { label: 'b.json', result: makeResult({ seed: 2, runId: 'b' }) },
    ]);
    expect(merged.byMethod['never.called']).toEqual(idle);
    expect(merged.histograms.byMethod['never.called']).toBeUndefined();
    expect(schemaProblems(merged)).toEqual([]);
  });
});

describe('merge refuses', () => {
  const refusal = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(RpcloadError);
      expect((err as RpcloadError).exitCode).toBe(2);
      return (err as RpcloadError).message;
    }
    throw new Error('expected a refusal');
  };
  const a = makeResult({ seed: 1, runId: 'a' });

  it.each([
    // one file is no merge
    ['a single file', [a], /^merge: expected at least two result files, found 1$/],
    // the same run twice would double count
    ['the same run twice', [a, makeResult({ seed: 1, runId: 'a' })], /^cannot merge: a\.json and b\.json are the same run \(run\.id a\)/],
    // another profile
    ['another profile', [a, makeResult({ seed: 2, runId: 'b', profile: 'other' })], /b\.json: run\.profile: "fixture" vs "other".*use --force/],
    // another load shape
    ['another load shape', [a, makeResult({ seed: 2, runId: 'b', rps: 50 })], /^cannot merge: not shards of one run, compared with a\.json: b\.json: config\.phases\[0\]\.load\.fromPerS: 100 vs 50/],
  ])('%s', (_name, results, message) => {
    expect(refusal(() => mergeRuns(results.map((result, i) => ({ label: `${'ab'[i]}.json`, result }))))).toMatch(message);
  });

  it('a histogram that is missing behind a figure', () => {
    const b = makeResult({ seed: 2, runId: 'b' });
    const broken = { ...b, histograms: { ...b.histograms, byMethod: {} } };
    expect(refusal(() => mergeRuns([{ label: 'a.json', result: a }, { label: 'b.json', result: broken }]))).toMatch(
      /^b\.json: histograms\.byMethod\["items\.list"\]: expected the histograms behind byMethod\["items\.list"\], found none: cannot merge exactly$/,
    );
  });

  it('a per-phase schedule-lag histogram that is missing behind its figure', () => {
    const b = makeResult({ seed: 2, runId: 'b' });
    const { scheduleLagByPhase: _dropped, ...histograms } = b.histograms;
    expect(refusal(() => mergeRuns([{ label: 'a.json', result: a }, { label: 'b.json', result: { ...b, histograms } }]))).toMatch(
      /^b\.json: histograms\.scheduleLagByPhase\["steady"\]: expected the histogram behind byPhase\["steady"\]\.scheduleLagMs, found none: cannot merge exactly$/,
    );
  });

  it('nothing when forced, but says what differed', () => {
    const merged = mergeRuns([{ label: 'a.json', result: a }, { label: 'b.json', result: makeResult({ seed: 2, runId: 'b', rps: 50 }) }], { force: true });
    expect(merged.warnings[0]).toBe('merged with --force although the load shapes differ: b.json: config.phases[0].load.fromPerS: 100 vs 50');
    expect(schemaProblems(merged)).toEqual([]);
  });
});
