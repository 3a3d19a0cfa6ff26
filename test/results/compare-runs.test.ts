import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { compareRuns, type Comparison, type MetricRow } from '../../src/results/compare/compare-runs.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { METRICS } from '../../src/results/compare/metrics.ts';
import type { CheckResult, RunResult } from '../../src/contract/result-schema.ts';
import { makeResult, type FixtureOptions } from '../support/result-fixtures.ts';

const DEFAULT_RULES = parseFailOnRules(DEFAULT_FAIL_ON);
const compare = (base: RunResult, head: RunResult, rules = DEFAULT_RULES, force = false): Comparison =>
  compareRuns({ label: 'base.json', result: base }, { label: 'head.json', result: head }, { rules, force });
const metric = (c: Comparison, name: string, method: string | null = null): MetricRow =>
  c.rows.find((r): r is MetricRow => r.type === 'metric' && r.metric === name && r.method === method)!;
const setup: FixtureOptions = { seed: 0, durationS: 40, rps: 100 };

describe('compare', () => {
  it('does not flag runs of the same setup (20 pairs of seeds, default rules)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const c = compare(makeResult({ ...setup, seed }), makeResult({ ...setup, seed: seed + 100 }));
      expect(c.rows.filter((r) => r.verdict === 'regression').map((r) => `seed ${seed}: ${r.type === 'metric' ? `${r.method} ${r.metric}` : r.name}`)).toEqual([]);
      expect(c.regression).toBe(false);
    }
  });

  it('does not blame the server for a run that overran its phases (a drain, a busy machine), but flags fewer requests in the same time', () => {
    const base = makeResult({ ...setup, seed: 1 }); // phases of 40 s in all, run for 40 s
    // The same requests over 44 s of wall clock (4 s beyond the phases): rps drops by 9 %, not the server's doing.
    const overran = { ...base, run: { ...base.run, id: 'overran' }, summary: { ...base.summary, durationS: 44, rps: base.summary.requests / 44 } };
    expect(metric(compare(base, overran), 'rps').verdict).not.toBe('regression');
    // 9 % fewer requests in the phases' own 40 s: a regression.
    const fewer = { ...base, run: { ...base.run, id: 'fewer' }, summary: { ...base.summary, rps: base.summary.rps / 1.1 } };
    expect(metric(compare(base, fewer), 'rps').verdict).toBe('regression');
  });

  it('flags a server that got slower, and says by how much', () => {
    const base = makeResult({ ...setup, seed: 1 });
    const head = makeResult({ ...setup, seed: 2, latencyMs: { median: 40, spread: 0.5 } });
    const c = compare(base, head);
    const p99 = metric(c, 'p99');
    expect(p99).toMatchObject({ verdict: 'regression', failedRules: ['p99:+10%+1ms'], base: base.summary.latencyMs.p99, head: head.summary.latencyMs.p99 });
    expect(p99.delta).toBeCloseTo(head.summary.latencyMs.p99 - base.summary.latencyMs.p99, 9);
    expect(p99.relative).toBeCloseTo(p99.delta! / base.summary.latencyMs.p99, 9);
    expect(p99.noise).toBeLessThan(p99.delta!);
    expect(c.regression).toBe(true);
    // p50 doubled too: the default rules gate it as well
    expect(metric(c, 'p50')).toMatchObject({ verdict: 'regression', failedRules: ['p50:+10%+1ms'] });
    // p90 has no default rule: worse, not a regression
    expect(metric(c, 'p90').verdict).toBe('worse');
  });

  it('reports a faster server as an improvement', () => {
    const c = compare(makeResult({ ...setup, seed: 1, latencyMs: { median: 40, spread: 0.5 } }), makeResult({ ...setup, seed: 2 }));
    expect(metric(c, 'p99').verdict).toBe('improvement');
    expect(c.regression).toBe(false);
  });

  it('flags a throughput drop beyond 5 %', () => {
    // The same schedule, but the head only managed 90 % of the arrivals.
    const base = makeResult({ ...setup, seed: 1 });
    const c = compare(base, makeResult({ ...setup, seed: 2, rps: 90, config: { phases: base.config.phases } }));
    expect(metric(c, 'rps')).toMatchObject({ verdict: 'regression', failedRules: ['rps:-5%'], base: 100, head: 90 });
  });

  it('flags an error rate up by more than 0.5 percentage points', () => {
    const c = compare(makeResult({ ...setup, seed: 1, errorRate: 0.005 }), makeResult({ ...setup, seed: 2, errorRate: 0.03 }));
    const errors = metric(c, 'errors');
    expect(errors.verdict).toBe('regression');
    expect(errors.delta! * 100).toBeGreaterThan(0.5);
  });

  it('judges the 429 rate only when a rule asks for it', () => {
    const base = makeResult({ ...setup, seed: 1, rateLimitedRate: 0.01 });
    const head = makeResult({ ...setup, seed: 2, rateLimitedRate: 0.05 });
    expect(metric(compare(base, head), 'rate_limited').verdict).toBe('worse');
    expect(metric(compare(base, head, parseFailOnRules('rate_limited:+1pp')), 'rate_limited').verdict).toBe('regression');
  });

  it('applies method-scoped rules to that method only', () => {
    const base = makeResult({ ...setup, seed: 1 });
    const head = makeResult({ ...setup, seed: 2, latencyMs: { median: 40, spread: 0.5 } });
    const c = compare(base, head, parseFailOnRules('work:p50:+10%'));
    expect(metric(c, 'p50', 'work')).toMatchObject({ verdict: 'regression', rules: ['work:p50:+10%'] });
    expect(metric(c, 'p50', 'ping')).toMatchObject({ verdict: 'worse', rules: [] });
    expect(metric(c, 'p50')).toMatchObject({ verdict: 'worse', rules: [] });
  });

  it('has a row per metric for overall and every method, n/a where a method is missing', () => {
    const base = makeResult({ ...setup, seed: 1, methods: { ping: 1, work: 1 } });
    const head = makeResult({ ...setup, seed: 2, methods: { ping: 1, work: 1, echo: 1 } });
    const c = compare(base, head, DEFAULT_RULES, true);
    const metricRows = c.rows.filter((r) => r.type === 'metric');
    // goodput is the summary's, in files that have it (these do not): no row
    expect(metricRows).toHaveLength((METRICS.length - 1) * 4);
    expect(metricRows.filter((r) => r.method === 'echo').every((r) => r.verdict === 'n/a' && r.base === null)).toBe(true);
    expect(Object.values(c.counts).reduce((a, b) => a + b, 0)).toBe(c.rows.length);
  });

  it('compares goodput overall when a file has it, higher being better', () => {
    const withGoodput = (r: ReturnType<typeof makeResult>, perS: number) => ({
      ...r,
      summary: { ...r.summary, goodput: { requests: perS * 10, perS, latencyBoundMs: 250 } },
    });
    const base = withGoodput(makeResult({ ...setup, seed: 1, methods: { ping: 1, work: 1 } }), 100);
    const head = withGoodput(makeResult({ ...setup, seed: 2, methods: { ping: 1, work: 1 } }), 50);
    const c = compare(base, head, parseFailOnRules('goodput:-10%'));
    const rows = c.rows.filter((r) => r.type === 'metric' && r.metric === 'goodput');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: null, base: 100, head: 50, verdict: 'regression' });
  });

  it('compares check verdicts and thresholds', () => {
    const check = (id: string, verdict: CheckResult['verdict']): CheckResult => ({ id, verdict, detail: `${id} ${verdict}`, evidence: {} });
    const base = makeResult({ ...setup, seed: 1, checks: [check('envelope', 'pass'), check('pagination', 'fail'), check('tls', 'skip')], thresholds: [{ expr: 'p99 < 200ms', actual: 150, ok: true }] });
    const head = makeResult({ ...setup, seed: 2, checks: [check('envelope', 'fail'), check('pagination', 'pass'), check('tls', 'skip')], thresholds: [{ expr: 'p99 < 200ms', actual: 250, ok: false }] });
    const c = compare(base, head);
    const status = Object.fromEntries(c.rows.flatMap((r) => (r.type === 'metric' ? [] : [[`${r.type} ${r.name}`, r.verdict]])));
    expect(status).toEqual({ 'check envelope': 'regression', 'check pagination': 'improvement', 'check tls': 'ok', 'threshold p99 < 200ms': 'regression' });
    expect(c.regression).toBe(true);
  });

  it('compares two verify runs by their checks alone', () => {
    const verify = (seed: number, verdict: CheckResult['verdict']): RunResult => {
      const r = makeResult({ ...setup, seed, kind: 'verify', checks: [{ id: 'envelope', verdict, detail: '', evidence: {} }] });
      return { ...r, summary: { ...r.summary, requests: 0 } };
    };
    const c = compare(verify(1, 'pass'), verify(2, 'fail'));
    expect(c.rows.map((r) => r.type)).toEqual(['check']);
    expect(c.regression).toBe(true);
  });

  it('never fails with --fail-on none', () => {
    const c = compare(makeResult({ ...setup, seed: 1 }), makeResult({ ...setup, seed: 2, latencyMs: { median: 80, spread: 0.5 }, errorRate: 0.2 }), []);
    expect(c.regression).toBe(false);
    expect(c.counts.worse).toBeGreaterThan(0);
  });

  const refusal = (fn: () => unknown): RpcloadError => {
    try {
      fn();
    } catch (err) {
      if (err instanceof RpcloadError) return err;
      throw err;
    }
    throw new Error('expected an RpcloadError');
  };

  it('refuses different load shapes unless forced, naming what differs', () => {
    const base = makeResult({ ...setup, seed: 1 });
    const head = makeResult({ ...setup, seed: 2, rps: 200 });
    const err = refusal(() => compare(base, head));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/^cannot compare base\.json and head\.json: their load shapes differ \(config\.phases\[0\]\.load\.fromPerS: 100 vs 200;.*use --force/);
    const forced = compare(base, head, DEFAULT_RULES, true);
    expect(forced.shapeDifferences).toContain('config.phases[0].load.fromPerS: 100 vs 200');
  });

  it('refuses a load run without requests', () => {
    const empty = makeResult({ ...setup, seed: 1 });
    const err = refusal(() => compare({ ...empty, summary: { ...empty.summary, requests: 0 }, run: { ...empty.run, status: 'aborted' } }, makeResult({ ...setup, seed: 2 })));
    expect(err.message).toBe('base.json: summary.requests: expected a load run with requests, found 0 (run status aborted): nothing to compare');
  });

  it('refuses a rule for a method neither file has', () => {
    const err = refusal(() => compare(makeResult({ ...setup, seed: 1 }), makeResult({ ...setup, seed: 2 }), parseFailOnRules('itms.list:p99:+10%')));
    expect(err.message).toBe('--fail-on: rule "itms.list:p99:+10%": no such method in either file (methods: items.list, ping, work)');
  });

  it('refuses a histogram that does not decode, naming where it is', () => {
    const base = makeResult({ ...setup, seed: 1 });
    const broken = { ...base, histograms: { ...base.histograms, latency: 'not-a-histogram' } };
    const err = refusal(() => compare(broken, makeResult({ ...setup, seed: 2 })));
    expect(err.message).toBe('base.json: histograms.latency: expected an HdrHistogram (compressed base64), found data that does not decode');
  });
});
