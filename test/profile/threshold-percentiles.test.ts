/** Thresholds on any percentile (p95, p75, p99.99 …), read from a realistic result file's histograms. */
import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { evaluateThreshold } from '../../src/profile/threshold-results.ts';
import { parseThreshold } from '../../src/profile/thresholds.ts';
import { nearestRank } from '../support/recorder-fixtures.ts';
import { buildResult, fixtureSamples } from '../support/result-fixtures.ts';

const options = { seed: 7, rps: 200, durationS: 10 };
const samples = fixtureSamples(options);
const result = buildResult(samples, options);
const sortedMs = (keep: (s: (typeof samples)[number]) => boolean, pick: 'latencyUs' | 'serviceUs'): number[] =>
  samples
    .filter(keep)
    .map((s) => s[pick] / 1000)
    .sort((a, b) => a - b);

/** HDR keeps 3 significant digits: within 0.1 % of the exact nearest rank. */
function expectNear(actual: number | null, exact: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - exact)).toBeLessThanOrEqual(exact * 0.001 + 0.001);
}

describe('thresholds on any percentile', () => {
  it.each([
    ['p95', 95],
    ['p75', 75],
    ['p99.99', 99.99],
    ['p33.3', 33.3],
  ])('%s of the latency, overall', (stat, q) => {
    const exact = nearestRank(
      sortedMs(() => true, 'latencyUs'),
      q,
    );
    const verdict = evaluateThreshold(parseThreshold(`${stat} < 100000ms`), result);
    expectNear(verdict.actual, exact);
    expect(verdict.ok).toBe(true);
  });

  it('per method, for service time, and in seconds', () => {
    expectNear(
      evaluateThreshold(parseThreshold('ping:p95 < 1s'), result).actual! * 1000,
      nearestRank(
        sortedMs((s) => s.method === 'ping', 'latencyUs'),
        95,
      ),
    );
    expectNear(
      evaluateThreshold(parseThreshold('work:service.p75 < 9s'), result).actual! * 1000,
      nearestRank(
        sortedMs((s) => s.method === 'work', 'serviceUs'),
        75,
      ),
    );
  });

  it('p99.9 and p999 are the same figure, the one the stats block holds', () => {
    const a = evaluateThreshold(parseThreshold('p99.9 < 1ms'), result);
    const b = evaluateThreshold(parseThreshold('p999 < 1ms'), result);
    expect(a.actual).toBe(result.summary.latencyMs.p999);
    expect(b.actual).toBe(a.actual);
    expect(a.ok).toBe(false);
  });

  it('a method never called has no figure, and fails', () => {
    expect(evaluateThreshold(parseThreshold('nope:p95 < 1s'), result)).toEqual({
      expr: 'nope:p95 < 1s',
      actual: null,
      ok: false,
    });
  });

  it.each(['p0 < 1ms', 'p101 < 1ms', 'p9.9.9 < 1ms', 'p < 1ms'])('refuses %j in one line', (expr) => {
    expect(() => parseThreshold(expr)).toThrow(RpcloadError);
    expect(() => parseThreshold(expr)).toThrow(/^expected (a percentile from p0\.1 to p100|a metric)/);
  });
});
