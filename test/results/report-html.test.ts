import { describe, expect, it } from 'vitest';
import { defaultReportPath } from '../../src/cli/report-action.ts';
import { createLatencyHistogram, decodeHistogram, recordUs, usToMs } from '../../src/metrics/hdr.ts';
import { chartTimeline, MAX_CHART_POINTS } from '../../src/results/report/charts.ts';
import { renderReport } from '../../src/results/report/render-report.ts';
import { TOP_CLIENTS } from '../../src/results/report/quota-table.ts';
import { niceStep, ticksFromZero } from '../../src/results/report/scale.ts';
import { MAX_NINES, ninesTicks, percentileAtNines, spectrumPoints } from '../../src/results/report/spectrum.ts';
import type { CheckResult, RunResult } from '../../src/contract/result-schema.ts';
import { makeResult } from '../support/result-fixtures.ts';

const HOSTILE = '<script>alert(1)</script>\u001b]0;pwned\u0007\u001b[31m"\'&';

/** A result whose every server-chosen string is hostile. */
function hostileResult(): RunResult {
  const result = makeResult({
    seed: 3,
    durationS: 20,
    methods: { ping: 2, [HOSTILE]: 1 },
    clientIds: ['client-1', HOSTILE],
    checks: [{ id: HOSTILE, verdict: 'fail', detail: HOSTILE, evidence: { header: HOSTILE, [HOSTILE]: 1 }, notes: [HOSTILE] }],
    thresholds: [{ expr: `${HOSTILE}:p99 < 1ms`, actual: 3, ok: false }],
    warnings: [HOSTILE],
  });
  const outcomes = { ...result.summary.outcomes, [`error:${HOSTILE}`]: 1 };
  return { ...result, run: { ...result.run, profile: HOSTILE, target: HOSTILE }, summary: { ...result.summary, outcomes } };
}

/** Name, number of points and dash style of every series path of a chart. */
function seriesPaths(html: string, chartId: string): { name: string; points: number; dashed: boolean }[] {
  const figure = new RegExp(`<figure class="chart" id="${chartId}">([\\s\\S]*?)</figure>`).exec(html)?.[1] ?? '';
  return [...figure.matchAll(/<path class="series" data-series="([^"]*)" d="([^"]*)"([^>]*)\/>/g)].map((m) => ({
    name: m[1]!,
    points: (m[2]!.match(/[ML]/g) ?? []).length,
    dashed: m[3]!.includes('stroke-dasharray'),
  }));
}

describe('HTML report', () => {
  const run = { label: 'results/run.json', result: makeResult({ seed: 1, durationS: 30 }) };
  const html = renderReport(run);

  it('has every section and a chart per view, each with drawn lines, axes and a legend', () => {
    for (const id of ['summary', 'charts', 'methods', 'clients', 'checks', 'thresholds', 'warnings']) expect(html).toContain(`<section id="${id}">`);
    expect(seriesPaths(html, 'chart-throughput').map((s) => [s.name, s.points])).toEqual([['success', 30], ['429 rate limited', 30], ['errors', 30]]);
    expect(seriesPaths(html, 'chart-latency-p50').map((s) => [s.name, s.points])).toEqual([['p50', 30]]);
    expect(seriesPaths(html, 'chart-latency').map((s) => [s.name, s.points])).toEqual([['p99', 30]]);
    expect(seriesPaths(html, 'chart-spectrum').map((s) => [s.name, s.points])).toEqual([['service time', 101], ['latency', 101]]);
    for (const label of ['seconds since start', 'requests per second', 'latency (ms)', 'percentile', '99.999%']) expect(html).toContain(label);
    expect(html.match(/<g class="legend-item">/g)).toHaveLength(7);
  });

  it('is self-contained: no script, no external resource, and a policy that forbids both', () => {
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    // The only URL is the SVG namespace (an identifier, never fetched); links stay on the page.
    expect([...html.matchAll(/https?:\/\/[^\s"<]+/g)].map((m) => m[0]).filter((u) => u !== 'http://www.w3.org/2000/svg' && u !== run.result.run.target)).toEqual([]);
    expect([...html.matchAll(/href="([^"]*)"/g)].every((m) => m[1]!.startsWith('#'))).toBe(true);
  });

  it('escapes everything a hostile server could have chosen', () => {
    const page = renderReport({ label: 'x.json', result: hostileResult() });
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // eslint-disable-next-line no-control-regex
    expect(page).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    // A quote from the server cannot end an attribute: only escaped quotes follow the name.
    expect(page).not.toMatch(/&lt;\/script&gt;[^<]*"'/);
  });

  it('overlays a baseline: dashed series and baseline columns', () => {
    const page = renderReport(run, { label: 'results/base.json', result: makeResult({ seed: 2, durationS: 30, latencyMs: { median: 10, spread: 0.5 } }) });
    const throughput = seriesPaths(page, 'chart-throughput');
    expect(throughput.map((s) => [s.name, s.dashed])).toEqual([
      ['success', false],
      ['429 rate limited', false],
      ['errors', false],
      ['success (baseline)', true],
      ['429 rate limited (baseline)', true],
      ['errors (baseline)', true],
    ]);
    expect(seriesPaths(page, 'chart-spectrum').filter((s) => s.dashed && s.points === 101)).toHaveLength(2);
    expect(page).toContain('baseline admitted');
    expect(page.match(/<span class="base" title="baseline">/g)!.length).toBeGreaterThan(40);
  });

  it('bounds the per-client table and sums up the rest', () => {
    const many = makeResult({ seed: 4, durationS: 10, clients: TOP_CLIENTS + 15 });
    const page = renderReport({ label: 'many.json', result: many });
    const clientRows = /<section id="clients">[\s\S]*?<\/section>/.exec(page)![0].match(/<tr><th scope="row">/g);
    expect(clientRows).toHaveLength(TOP_CLIENTS);
    const sorted = Object.values(many.rateLimit!.clients).sort((a, b) => b.refused - a.refused || b.sent - a.sent);
    const restSent = sorted.slice(TOP_CLIENTS).reduce((s, c) => s + c.sent, 0);
    expect(page).toContain(`Showing the ${TOP_CLIENTS} most refused of ${TOP_CLIENTS + 15} clients; the other 15 sent ${restSent.toLocaleString('en-US')} requests`);
  });

  it('says when a run has no ledger, checks or thresholds instead of leaving gaps', () => {
    const page = renderReport({ label: 'bare.json', result: { ...makeResult({ seed: 5, durationS: 5 }), rateLimit: null } });
    expect(page).toContain('This run has no rate-limit ledger.');
    expect(page).toContain('No conformance checks in this run.');
    expect(page).toContain('No thresholds were set.');
  });

  it('gives p50 its own axis, so it reads next to a p99 many times larger', () => {
    const axisEnd = (chartId: string): number => {
      const figure = new RegExp(`<figure class="chart" id="${chartId}">([\\s\\S]*?)</figure>`).exec(html)![1]!;
      const labels = [...figure.matchAll(/<text class="tick" x="\d+(?:\.\d+)?" y="[\d.]+" text-anchor="end">([\d.]+)<\/text>/g)].map((m) => Number(m[1]));
      return Math.max(...labels);
    };
    const p50Max = Math.max(...run.result.timeline.map((row) => row.p50));
    expect(axisEnd('chart-latency-p50')).toBeLessThan(p50Max * 2.5);
    expect(axisEnd('chart-latency')).toBeGreaterThan(axisEnd('chart-latency-p50'));
  });

  it('shows threshold values in the unit they were written in', () => {
    const page = renderReport({
      label: 't.json',
      result: makeResult({
        seed: 7,
        durationS: 5,
        thresholds: [
          { expr: 'error_rate < 5%', actual: 0.374007, ok: true },
          { expr: 'p99 < 250', actual: 12.5, ok: true },
          { expr: 'rps >= 50', actual: 99.5, ok: true },
        ],
      }),
    });
    const section = /<section id="thresholds">[\s\S]*?<\/section>/.exec(page)![0];
    expect([...section.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1])).toEqual(['0.374%', '12.5 ms', '99.5']);
  });

  it('leads a verify report with its checks, leaves out empty load panels, and does not show failed checks green', () => {
    const loaded = makeResult({ seed: 8, durationS: 5 });
    const checks = [
      { id: 'envelope', verdict: 'fail' as const, detail: 'bad envelope', evidence: {} },
      { id: 'tls', verdict: 'pass' as const, detail: 'fine', evidence: {} },
    ];
    const zero = { ...loaded.summary.latencyMs, p50: 0, p90: 0, p99: 0, p999: 0, max: 0, min: 0, mean: 0 };
    const verify: RunResult = {
      ...loaded,
      run: { ...loaded.run, kind: 'verify' },
      summary: { ...loaded.summary, requests: 0, rps: 0, outcomes: {}, latencyMs: zero, serviceTimeMs: zero },
      byMethod: {},
      byPhase: {},
      timeline: [],
      checks,
    };
    const page = renderReport({ label: 'verify.json', result: verify });
    const order = [...page.matchAll(/<section id="(\w+)">/g)].map((m) => m[1]);
    expect(order).toEqual(['summary', 'checks', 'thresholds', 'warnings']);
    expect(page).not.toContain('<dt>Requests</dt>');
    expect(page).not.toContain('id="chart-');
    expect(page).toContain('<span class="status-failed">completed, 1 check failed</span>');
    expect(page).not.toContain('<span class="status-completed"');
  });

  it('draws per-client bars of the busiest window against the limit', () => {
    const result = makeResult({ seed: 9, durationS: 20, clients: 3 });
    const page = renderReport({ label: 'q.json', result });
    const [id, client] = Object.entries(result.rateLimit!.clients)[0]!;
    const peak = client.periods.reduce((max, p) => Math.max(max, p.admitted), 0);
    const limit = result.rateLimit!.limit;
    const width = ((Math.min(peak, limit) / Math.max(peak, limit)) * 100).toFixed(1);
    expect(page).toContain('<th>busiest window / limit</th>');
    const row = new RegExp(`<tr><th scope="row"><code>${id}</code></th>[\\s\\S]*?</tr>`).exec(page)![0];
    expect(row).toContain(`title="busiest window: ${peak} admitted, limit ${limit}"><span class="admitted" style="width:${width}%">`);
  });

  it('opens failing checks and keeps passing ones collapsed', () => {
    const page = renderReport({
      label: 'checks.json',
      result: makeResult({ seed: 6, durationS: 5, checks: [{ id: 'a', verdict: 'fail', detail: 'bad', evidence: { n: 1 } }, { id: 'b', verdict: 'pass', detail: 'good', evidence: {} }] }),
    });
    expect(page).toMatch(/<details class="check" open><summary><span class="badge fail">fail<\/span> <code>a<\/code>/);
    expect(page).toMatch(/<details class="check"><summary><span class="badge pass">pass<\/span> <code>b<\/code>/);
    expect(page).toContain('&quot;n&quot;: 1');
  });

  it('shows why a check was skipped, and opens one skipped because the target broke', () => {
    const skipped = (id: string, skipClass: CheckResult['skipClass']): CheckResult => ({ id, verdict: 'skip', skipClass, detail: 'why', evidence: {} });
    const page = renderReport({
      label: 'skips.json',
      result: makeResult({ seed: 6, durationS: 5, checks: [skipped('a', 'target_broken'), skipped('b', 'not_applicable')] }),
    });
    expect(page).toMatch(/<details class="check" open><summary><span class="badge skip">skip<\/span> <code>a<\/code> — why <span class="note">\(target_broken\)<\/span>/);
    expect(page).toMatch(/<details class="check"><summary><span class="badge skip">skip<\/span> <code>b<\/code> — why <span class="note">\(not_applicable\)<\/span>/);
  });
});

describe('report charts arithmetic', () => {
  it('scales the last, partial second to a per-second rate instead of dropping to 0, and leaves out a sliver', () => {
    const rows = [0, 1, 2].map((t) => ({ t, requests: 100, success: 90, rateLimited: 5, errors: 5, p50: 1, p99: 2 }));
    const partial = [...rows.slice(0, 2), { ...rows[2]!, requests: 30, success: 27, rateLimited: 3, errors: 0 }];
    const last = chartTimeline(partial, 2.3)[2]!;
    expect([last.t, last.requests, last.success, last.rateLimited, last.errors].map((n) => Math.round(n * 1e9) / 1e9)).toEqual([2, 100, 90, 10, 0]);
    expect(chartTimeline(partial, 2.1)).toHaveLength(2);
    expect(chartTimeline(rows, 3)).toEqual(rows);
  });

  it.each([
    // span, pieces, nice step
    [100, 5, 20],
    [97, 5, 20],
    [1, 5, 0.2],
    [3500, 8, 500],
    [0, 5, 1],
  ])('a span of %d in about %d pieces steps by %d', (span, count, step) => {
    expect(niceStep(span, count)).toBeCloseTo(step, 12);
  });

  it.each([
    [97, 5, [0, 20, 40, 60, 80, 100]],
    [0.6, 3, [0, 0.2, 0.4, 0.6]],
    // nothing to show still gives an axis
    [0, 5, [0, 0.2]],
  ])('ticks from zero to %d in about %d pieces: %j', (max, count, values) => {
    expect(ticksFromZero(max, count).map((t) => t.value)).toEqual(values);
  });

  it('labels whole nines as percentiles', () => {
    expect(ninesTicks().map((t) => t.label)).toEqual(['0%', '90%', '99%', '99.9%', '99.99%', '99.999%']);
    expect(percentileAtNines(2)).toBeCloseTo(99, 12);
  });

  it('reads the spectrum off the histogram: non-decreasing, from the min to the max', () => {
    const histogram = createLatencyHistogram();
    for (let us = 1000; us <= 100_000; us += 10) recordUs(histogram, us);
    const points = spectrumPoints(decodeHistogram(makeResult({ seed: 1 }).histograms.latency));
    expect(points).toHaveLength(MAX_NINES / 0.05 + 1);
    points.forEach(([, ms], i) => i > 0 && expect(ms).toBeGreaterThanOrEqual(points[i - 1]![1]));
    const uniform = spectrumPoints(histogram);
    expect(uniform[0]).toEqual([0, usToMs(histogram.getValueAtPercentile(0))]);
    // 1 nine = p90 of 1..100 ms
    expect(uniform[20]![1]).toBeCloseTo(90.1, 0);
    expect(spectrumPoints(createLatencyHistogram())).toEqual([]);
  });

  it('draws long runs in buckets of seconds, per-second rates and the bucket’s worst p99 kept', () => {
    const rows = Array.from({ length: 3 * MAX_CHART_POINTS }, (_, t) => ({ t, requests: 100, success: 90, rateLimited: 6, errors: 4, p50: 10, p99: t % 3 === 1 ? 80 : 20 }));
    const drawn = chartTimeline(rows);
    expect(drawn).toHaveLength(MAX_CHART_POINTS);
    expect(drawn[1]).toEqual({ t: 3, requests: 100, success: 90, rateLimited: 6, errors: 4, p50: 10, p99: 80 });
    expect(chartTimeline(rows.slice(0, 100))).toEqual(rows.slice(0, 100));
  });

  it.each([
    ['results/run.json', 'results/run.html'],
    ['run', 'run.html'],
    ['a.json.bak', 'a.json.bak.html'],
  ])('puts the report of %s at %s by default', (input, output) => {
    expect(defaultReportPath(input)).toBe(output);
  });
});
