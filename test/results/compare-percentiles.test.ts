/** `compare --fail-on` on any latency percentile: p95, service.p75 … read from the histograms, with rows of their own. */
import { describe, expect, it } from 'vitest';
import { compareRuns, type MetricRow } from '../../src/results/compare/compare-runs.ts';
import { parseFailOnRule, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { evaluateThreshold } from '../../src/profile/threshold-results.ts';
import { parseThreshold } from '../../src/profile/thresholds.ts';
import { makeResult } from '../support/result-fixtures.ts';

const setup = { rps: 100, durationS: 20 };
const base = makeResult({ ...setup, seed: 1 });
const slower = makeResult({ ...setup, seed: 2, latencyMs: { median: 40, spread: 0.5 } });

function rows(rules: string, head = slower): MetricRow[] {
  const c = compareRuns({ label: 'base', result: base }, { label: 'head', result: head }, { rules: parseFailOnRules(rules) });
  return c.rows.filter((row): row is MetricRow => row.type === 'metric');
}

describe('compare on any percentile', () => {
  it('gives p95 rows read from the histograms (the same figure a p95 threshold reads) and gates them', () => {
    const p95 = rows('p95:+10%').filter((row) => row.metric === 'p95');
    expect(p95.map((row) => row.method)).toEqual([null, 'items.list', 'ping', 'work']);
    const overall = p95[0]!;
    expect(overall.base).toBe(evaluateThreshold(parseThreshold('p95 < 1ms'), base).actual);
    expect(overall.head).toBe(evaluateThreshold(parseThreshold('p95 < 1ms'), slower).actual);
    expect(overall.head! / overall.base!).toBeGreaterThan(1.5); // median 20 → 40 ms
    expect(overall).toMatchObject({ unit: 'ms', verdict: 'regression', rules: ['p95:+10%'], failedRules: ['p95:+10%'] });
  });

  it('p99.9 is the file’s p999 row; service.p75 per method; nothing extra without a rule', () => {
    expect(parseFailOnRule('p99.9:+5%')).toMatchObject({ metric: 'p999' });
    const service = rows('ping:service.p75:+20ms').filter((row) => row.metric === 'service.p75');
    expect(service.find((row) => row.method === 'ping')).toMatchObject({ rules: ['ping:service.p75:+20ms'], verdict: 'regression' });
    expect(rows('p99:+10%').some((row) => row.metric === 'p95')).toBe(false);
  });

  it('an unchanged run is within noise on p95 too', () => {
    const same = rows('p95:+10%', makeResult({ ...setup, seed: 3 })).filter((row) => row.metric === 'p95' && row.method === null);
    expect(same[0]!.verdict).not.toBe('regression');
  });

  it('refuses a percentile out of range', () => {
    expect(parseFailOnRule('p0:+10%')).toMatch(/unknown metric "p0" .*or any percentile like p95/);
  });
});
