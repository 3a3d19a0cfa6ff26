import { describe, expect, it } from 'vitest';
import { decodeHistogram, percentilesMs } from '../../src/metrics/hdr.ts';
import { mergeRecordedData } from '../../src/metrics/merge-recorded.ts';
import { emptyRecordedData, type RecordedData } from '../../src/metrics/recorded-data.ts';
import { buildRunResult } from '../../src/session/result/build-result.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { LAG_WARNING_P99_MS } from '../../src/session/result/result-warnings.ts';
import { REDACTED } from '../../src/util/redact.ts';
import { buildInput, DIMS, recordedData, recorderSamples, RUN, sample } from '../support/recorder-fixtures.ts';

describe('buildRunResult', () => {
  const samples = recorderSamples(4000, 5, 20);
  const data = recordedData(samples);
  const result = buildRunResult(buildInput(data));
  const durationS = (Date.parse(RUN.endedAt!) - Date.parse(RUN.startedAt)) / 1000;

  it('validates against the result schema', () => {
    expect(validateRunResult(result)).toEqual([]);
    expect(validateRunResult(JSON.parse(JSON.stringify(result)))).toEqual([]);
  });

  it('gives identical figures for live data, its JSON round trip and a merge of one', () => {
    expect(buildRunResult(buildInput(JSON.parse(JSON.stringify(data)) as RecordedData))).toEqual(result);
    expect(buildRunResult(buildInput(mergeRecordedData([data, emptyRecordedData()])))).toEqual(result);
  });

  it('summarizes requests, duration, rate, percentiles, outcomes, lag and tokens from the data', () => {
    const { summary } = result;
    expect(summary.requests).toBe(samples.length);
    expect(summary.durationS).toBe(durationS);
    expect(summary.rps).toBe(Math.round((samples.length / durationS) * 1000) / 1000);
    expect(summary.latencyMs).toEqual(percentilesMs(decodeHistogram(data.overall.latency)));
    expect(summary.serviceTimeMs).toEqual(percentilesMs(decodeHistogram(data.overall.serviceTime)));
    expect(summary.outcomes).toEqual(data.overall.outcomes);
    expect(summary.scheduleLagMs).toEqual(percentilesMs(decodeHistogram(data.scheduleLag)));
    expect(summary.tokens).toMatchObject({
      requests: DIMS.clients.length,
      failures: 0,
      outcomes: { success: DIMS.clients.length },
    });
  });

  it('lists every declared method, phase and client in order, zero stats without traffic', () => {
    const onlyPing = buildRunResult(
      buildInput(recordedData([sample({ methodIndex: 0, clientIndex: 1, doneAtMs: 500 })])),
    );
    expect(Object.keys(onlyPing.byMethod)).toEqual(DIMS.methods);
    expect(Object.keys(onlyPing.byClient)).toEqual(DIMS.clients);
    expect(Object.keys(onlyPing.byPhase)).toEqual(DIMS.phases);
    const zeros = { min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
    expect(onlyPing.byMethod[DIMS.methods[1]!]).toEqual({
      requests: 0,
      rps: 0,
      latencyMs: zeros,
      serviceTimeMs: zeros,
      outcomes: {},
    });
    expect(Object.keys(onlyPing.histograms.byMethod)).toEqual([DIMS.methods[0]]);
  });

  it('has per-outcome stats whose outcome counts are that outcome alone', () => {
    for (const [key, stats] of Object.entries(result.byOutcome)) {
      expect(stats.outcomes).toEqual({ [key]: result.summary.outcomes[key] });
      expect(stats.requests).toBe(result.summary.outcomes[key]);
    }
  });

  it('takes the duration from the data while the run is still going', () => {
    const running = buildRunResult(buildInput(data, { run: { ...RUN, status: 'running', endedAt: null } }));
    expect(running.summary.durationS).toBe(Math.round(data.lastAtMs) / 1000);
  });

  it('pads the timeline with zero rows to the end of the run', () => {
    const early = buildRunResult(buildInput(recordedData([sample({ doneAtMs: 1500 })])));
    expect(early.timeline).toHaveLength(Math.ceil(durationS));
    expect(early.timeline.slice(2).every((row) => row.requests === 0)).toBe(true);
  });

  it('has a null schedule lag without open-model samples, and a rateLimit section with the contract', () => {
    const closed = buildRunResult(buildInput(recordedData([sample({ lagUs: -1 })])));
    expect(closed.summary.scheduleLagMs).toBeNull();
    expect(closed.histograms.scheduleLag).toBeUndefined();
    expect(closed.rateLimit).toMatchObject({ limit: 100, windowS: 10, policy: 'honour' });
    expect(buildRunResult(buildInput(emptyRecordedData())).rateLimit).toBeNull();
  });

  it('appends the passive checks unless the caller gave a check with the same id', () => {
    expect(result.checks.map((c) => c.id)).toEqual(['ratelimit.threshold', 'ratelimit.retry_after_honoured']);
    const own = { id: 'ratelimit.threshold', verdict: 'pass' as const, detail: 'from verify', evidence: {} };
    expect(buildRunResult(buildInput(data, { checks: [own] })).checks.map((c) => c.detail)).toEqual([
      'from verify',
      result.checks[1]!.detail,
    ]);
    expect(buildRunResult(buildInput(emptyRecordedData())).checks).toEqual([]);
  });

  it('redacts secrets from config and check evidence once more', () => {
    const leaky = buildRunResult(
      buildInput(data, {
        config: { clients: [{ id: 'c1', secret: 's3cr3t-value' }], auth: { tokenMethod: 'auth.token' } },
        checks: [{ id: 'x', verdict: 'pass', detail: 'ok', evidence: { header: 'Bearer abc.def' } }],
      }),
    );
    expect(JSON.stringify(leaky)).not.toMatch(/s3cr3t-value|abc\.def/);
    expect(leaky.config).toEqual({ clients: [{ id: 'c1', secret: REDACTED }], auth: { tokenMethod: 'auth.token' } });
  });

  it.each([
    ['https://user:pa55@api.example.com/base', `https://${REDACTED}@api.example.com/base`], // credentials in the URL
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'], // nothing to hide
  ])('keeps credentials of target %s out of the file', (target, shown) => {
    expect(buildRunResult(buildInput(data, { run: { ...RUN, target } })).run.target).toBe(shown);
  });

  it('appends the warnings its figures imply, once', () => {
    const slow = recordedData([sample({ lagUs: (LAG_WARNING_P99_MS + 7) * 1000 })]);
    const first = buildRunResult(buildInput(slow, { warnings: ['caller says hi'] }));
    expect(first.warnings[0]).toBe('caller says hi');
    const p99 = first.summary.scheduleLagMs!.p99;
    expect(p99).toBeGreaterThan(LAG_WARNING_P99_MS);
    expect(first.warnings[1]).toBe(
      `schedule lag p99 ${p99.toFixed(1)} ms: the load generator, not the server, was the bottleneck`,
    );
    expect(buildRunResult(buildInput(slow, { warnings: first.warnings })).warnings).toEqual(first.warnings);
  });
});
