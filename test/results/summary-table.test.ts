import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { renderSummaryTable } from '../../src/results/summary-table.ts';
import { formatCount, formatMs, formatShare } from '../../src/results/text-table.ts';
import { sampleResult } from '../support/recorder-fixtures.ts';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

const result: RunResult = {
  ...sampleResult({
    thresholds: [
      { expr: 'p99 < 300ms', actual: 123.4, ok: true },
      { expr: 'error_rate < 0.1%', actual: 2.5, ok: false },
    ],
    warnings: ['schedule lag p99 12.3 ms: the load generator, not the server, was the bottleneck'],
  }),
};
const plain = renderSummaryTable(result, { color: false });

describe('renderSummaryTable', () => {
  it('shows the headline figures of the result', () => {
    const { summary } = result;
    expect(plain).toContain(`requests        ${formatCount(summary.requests)}  (${summary.rps.toFixed(1)}/s)`);
    expect(plain).toContain(`${summary.durationS.toFixed(1)} s`);
    for (const p of [summary.latencyMs, summary.serviceTimeMs, summary.scheduleLagMs!]) {
      expect(plain).toContain(`p50 ${formatMs(p.p50)}  p90 ${formatMs(p.p90)}  p99 ${formatMs(p.p99)}  p99.9 ${formatMs(p.p999)}  max ${formatMs(p.max)}`);
    }
  });

  it('lists outcomes with their share of requests', () => {
    for (const [key, n] of Object.entries(result.summary.outcomes)) expect(plain).toContain(`${key} ${formatCount(n)} (${formatShare(n, result.summary.requests)})`);
  });

  it('has one aligned row per method', () => {
    const lines = plain.split('\n');
    const header = lines.find((l) => l.startsWith('method'))!;
    const rows = Object.keys(result.byMethod).map((name) => lines.find((l) => l.startsWith(`${name} `))!);
    for (const [name, stats] of Object.entries(result.byMethod)) {
      const row = rows[Object.keys(result.byMethod).indexOf(name)]!;
      expect(row.split(/\s+/).slice(0, 3)).toEqual([name, formatCount(stats.requests), stats.rps.toFixed(1)]);
      expect(row).toContain(formatMs(stats.latencyMs.p99));
    }
    // Right-aligned numbers: every row ends where the header ends.
    expect(new Set([header, ...rows].map((l) => l.length)).size).toBe(1);
  });

  it('has a row per phase when there is more than one, and none for a single phase', () => {
    const phases = Object.keys(result.byPhase);
    expect(phases.length).toBeGreaterThan(1);
    const lines = plain.split('\n');
    expect(lines.some((l) => /^phase\s+requests\s+rps\s+p50 ms/.test(l))).toBe(true);
    for (const [name, stats] of Object.entries(result.byPhase)) {
      const row = lines.find((l) => l.startsWith(`${name} `))!;
      expect(row.split(/\s+/).slice(0, 4)).toEqual([name, formatCount(stats.requests), stats.rps.toFixed(1), formatMs(stats.latencyMs.p50)]);
    }
    const [first] = phases;
    const single = renderSummaryTable({ ...result, byPhase: { [first!]: result.byPhase[first!]! } }, { color: false });
    expect(single).not.toMatch(/^phase\s+requests/m);
  });

  it('marks thresholds and checks ✓ ✗ – with their detail, and shows warnings', () => {
    expect(plain).toContain('✓ p99 < 300ms  (actual 123.4 ms)'); // in the expression's own unit
    expect(plain).toContain('✗ error_rate < 0.1%  (actual 2.5%)');
    for (const check of result.checks) {
      const mark = { pass: '✓', fail: '✗', skip: '–' }[check.verdict];
      expect(plain).toMatch(new RegExp(`${mark} ${check.id.replace('.', '\\.')}\\s+${check.detail.slice(0, 30).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
    expect(plain).toContain(`! ${result.warnings[0]}`);
    expect(plain).toContain(`tokens          ${formatCount(result.summary.tokens.requests)} requests, 0 failed`);
  });

  it('uses color only when asked, with the same text underneath', () => {
    const colored = renderSummaryTable(result, { color: true });
    expect(plain).not.toMatch(ANSI);
    expect(colored).toMatch(ANSI);
    expect(colored.replace(ANSI, '')).toBe(plain);
  });

  it('sanitizes text from the server and the file again', () => {
    const hostile: RunResult = {
      ...result,
      summary: { ...result.summary, outcomes: { ...result.summary.outcomes, 'error:\u001b]0;owned\u0007x': 1 } },
      checks: [{ id: 'envelope', verdict: 'fail', detail: 'body was \u001b[2J\u001b[Hcleared', evidence: {} }],
    };
    const text = renderSummaryTable(hostile, { color: false });
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text).toContain('body was cleared');
  });

  it('leaves out the request block for a verify run that sent no load', () => {
    const verify: RunResult = { ...result, run: { ...result.run, kind: 'verify' }, summary: { ...result.summary, requests: 0 } };
    const text = renderSummaryTable(verify, { color: false });
    expect(text).not.toContain('latency ms');
    expect(text).toContain('checks');
  });
});
