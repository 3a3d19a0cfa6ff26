/**
 * The exemplar reservoir: what it keeps (the N slowest, a bottom-N sample per outcome other than
 * success, one per latency bucket), that it stays bounded, and that worker and shard merges keep
 * exactly what one recorder would have.
 */
import { describe, expect, it } from 'vitest';
import { EXEMPLAR_BUCKETS_MS, mergeExemplars } from '../../src/metrics/exemplars.ts';
import { mergeRuns } from '../../src/results/merge/merge-runs.ts';
import { buildRunResult } from '../../src/session/result/build-result.ts';
import { buildInput, DIMS, recordedData, recorderSamples, RUN } from '../support/recorder-fixtures.ts';
import { schemaProblems } from '../support/result-fixtures.ts';

const samples = recorderSamples(20_000, 11, 20);
const data = recordedData(samples);

describe('the exemplars of one recorder', () => {
  it('keep the N slowest of each method, slowest first', () => {
    DIMS.methods.forEach((method, m) => {
      const slowest = data.exemplars![method]!.filter((e) => e.kinds.includes('slowest'));
      const expected = samples
        .filter((s) => s.methodIndex === m)
        .map((s) => Math.round(s.latencyUs) / 1000)
        .sort((a, b) => b - a)
        .slice(0, 10);
      expect(slowest.map((e) => e.latencyMs)).toEqual(expected);
    });
  });

  it('sample each outcome but success, at most N each, by the smallest span keys', () => {
    const list = data.exemplars![DIMS.methods[0]!]!;
    const sampled = list.filter((e) => e.kinds.includes('outcome'));
    const outcomes = new Set(sampled.map((e) => e.outcome));
    expect(outcomes.has('success')).toBe(false);
    expect(outcomes.size).toBe(3); // every failure outcome of the fixtures: 429, an error, a transport failure
    for (const outcome of outcomes) {
      const own = sampled.filter((e) => e.outcome === outcome);
      const keys = samples
        .filter((s) => s.methodIndex === 0 && s.outcome === outcome)
        .map((s) => s.span1!)
        .sort((a, b) => a - b)
        .slice(0, 10);
      expect(own.map((e) => Number.parseInt(e.spanId.slice(8), 16)).sort((a, b) => a - b)).toEqual(keys);
    }
  });

  it('keep one per latency bucket, inside its bounds, and carry ids, client, phase and timings', () => {
    for (const list of Object.values(data.exemplars!)) {
      const buckets = list.filter((e) => e.kinds.includes('bucket'));
      expect(new Set(buckets.map((e) => e.bucketLeMs)).size).toBe(buckets.length);
      for (const e of buckets) {
        const le = e.bucketLeMs ?? Number.POSITIVE_INFINITY;
        const below =
          EXEMPLAR_BUCKETS_MS[EXEMPLAR_BUCKETS_MS.indexOf(le) - 1] ??
          (le === Number.POSITIVE_INFINITY ? EXEMPLAR_BUCKETS_MS.at(-1)! : 0);
        expect(e.latencyMs).toBeLessThanOrEqual(le);
        expect(e.latencyMs).toBeGreaterThan(below);
      }
      for (const e of list) {
        expect(e.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(e.spanId).toMatch(/^[0-9a-f]{16}$/);
        expect(DIMS.clients).toContain(e.client);
        expect(e.intendedStartMs).toBeGreaterThanOrEqual(0);
        expect(e.latencyMs).toBeGreaterThanOrEqual(e.serviceTimeMs);
      }
    }
  });

  it('stay bounded however many requests are recorded', () => {
    const many = recordedData(recorderSamples(200_000, 12, 600));
    for (const list of Object.values(many.exemplars!)) {
      // N slowest + N per failure outcome (3) + one per bucket (14), fewer where one request counts twice.
      expect(list.length).toBeLessThanOrEqual(10 + 3 * 10 + EXEMPLAR_BUCKETS_MS.length + 1);
    }
  });
});

describe('merged exemplars', () => {
  it('of parts split by client (workers) or by time are exactly one recorder’s', () => {
    const byClient = [0, 1].map((k) => recordedData(samples.filter((s) => s.clientIndex % 2 === k)).exemplars);
    expect(mergeExemplars(byClient)).toEqual(data.exemplars);
    const byTime = [0, 1].map((k) => recordedData(samples.filter((s) => s.doneAtMs < 10_000 === (k === 0))).exemplars);
    expect(mergeExemplars(byTime)).toEqual(data.exemplars);
  });

  it('of two shards’ result files are exactly one run’s (rpcload merge)', () => {
    const whole = buildRunResult(buildInput(data));
    const shards = [0, 1].map((k) =>
      buildRunResult(
        buildInput(recordedData(samples.filter((s) => s.clientIndex % 2 === k)), {
          run: {
            ...RUN,
            id: `shard-${k}`,
            shard: { index: k + 1, count: 2, runId: 'run-1', clients: 5, startAt: null, startLateMs: null },
          },
        }),
      ),
    );
    const merged = mergeRuns(shards.map((result, i) => ({ label: `shard-${i}.json`, result })));
    expect(schemaProblems(merged)).toEqual([]);
    expect(merged.exemplars).toEqual(whole.exemplars);
  });
});
