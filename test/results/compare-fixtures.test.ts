import { describe, expect, it } from 'vitest';
import { buildResult, fixtureSamples, makeResult, schemaProblems } from '../support/result-fixtures.ts';

/** The fixtures every compare/merge/report test builds on must be realistic and valid. */
describe('result fixtures', () => {
  it('are valid rpcload/result@1 files', () => {
    const result = makeResult({ seed: 1, checks: [{ id: 'envelope', verdict: 'pass', detail: 'ok', evidence: {} }], thresholds: [{ expr: 'p99 < 300ms', actual: 120, ok: true }] });
    expect(schemaProblems(result)).toEqual([]);
  });

  it('are reproducible from the seed and differ between seeds', () => {
    expect(makeResult({ seed: 5 })).toEqual(makeResult({ seed: 5 }));
    expect(makeResult({ seed: 5 }).summary.latencyMs).not.toEqual(makeResult({ seed: 6 }).summary.latencyMs);
  });

  it('report the percentiles of their samples within HDR precision', () => {
    const options = { seed: 3, latencyMs: { median: 40, spread: 0.6 } };
    const samples = fixtureSamples(options);
    const result = buildResult(samples, options);
    const sorted = samples.map((s) => s.latencyUs).sort((a, b) => a - b);
    const exactMs = (q: number) => Math.round(sorted[Math.ceil(q * sorted.length) - 1]!) / 1000;
    for (const [key, q] of [['p50', 0.5], ['p90', 0.9], ['p99', 0.99]] as const) {
      // 3 significant digits: within 0.1 % (plus the µs rounding).
      expect(Math.abs(result.summary.latencyMs[key] - exactMs(q))).toBeLessThanOrEqual(exactMs(q) * 0.001 + 0.002);
    }
    expect(result.summary.requests).toBe(samples.length);
    expect(result.timeline.reduce((sum, row) => sum + row.requests, 0)).toBe(samples.length);
  });

  it('honour the rates, methods and clients they are asked for', () => {
    const result = makeResult({ seed: 9, rps: 50, durationS: 20, errorRate: 0.1, rateLimitedRate: 0.05, methods: { a: 1, b: 1 }, clients: 4 });
    expect(result.summary.requests).toBe(1000);
    expect(result.summary.rps).toBe(50);
    expect(Object.keys(result.byMethod).sort()).toEqual(['a', 'b']);
    expect(Object.keys(result.rateLimit!.clients)).toHaveLength(4);
    const errors = result.summary.outcomes['error:unexpected_error']! / 1000;
    const limited = result.summary.outcomes['error:rate_limit_exceeded']! / 1000;
    // Binomial: 1000 draws, well within 4 standard deviations.
    expect(Math.abs(errors - 0.1)).toBeLessThan(4 * Math.sqrt((0.1 * 0.9) / 1000));
    expect(Math.abs(limited - 0.05)).toBeLessThan(4 * Math.sqrt((0.05 * 0.95) / 1000));
  });
});
