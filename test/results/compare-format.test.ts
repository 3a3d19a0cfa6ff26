import { describe, expect, it } from 'vitest';
import { compareRuns, type Comparison } from '../../src/results/compare/compare-runs.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { METRICS } from '../../src/results/compare/metrics.ts';
import { formatDelta, formatRelative, formatValue, regressionLines } from '../../src/results/compare/format.ts';
import { markdownCode, renderComparisonMarkdown } from '../../src/results/compare/render-markdown.ts';
import { renderComparisonTable } from '../../src/results/compare/render-table.ts';
import { makeResult } from '../support/result-fixtures.ts';

const HOSTILE = '<script>alert(1)</script>|`x`\u001b]0;pwned\u0007\u001b[2J';
const setup = { durationS: 30, methods: { ping: 2, [HOSTILE]: 1 } };

function sample(): Comparison {
  const base = makeResult({ ...setup, seed: 1, checks: [{ id: `check-${HOSTILE}`, verdict: 'pass', detail: '', evidence: {} }] });
  const head = makeResult({ ...setup, seed: 2, latencyMs: { median: 45, spread: 0.5 }, checks: [{ id: `check-${HOSTILE}`, verdict: 'fail', detail: '', evidence: {} }] });
  return compareRuns({ label: 'base.json', result: base }, { label: 'head.json', result: head }, { rules: parseFailOnRules(DEFAULT_FAIL_ON) });
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

describe('compare formatting', () => {
  it.each([
    // ms with precision that suits the size
    ['ms', 0.4123, '0.412 ms'],
    ['ms', 12.345, '12.35 ms'],
    ['ms', 1234.56, '1234.6 ms'],
    ['per_s', 99.96, '100.0/s'],
    ['ratio', 0.0123, '1.23%'],
    ['ms', null, '—'],
  ] as const)('formats %s %j as %s', (unit, value, expected) => {
    expect(formatValue(unit, value)).toBe(expected);
  });

  it.each([
    ['ms', 1.5, '+1.500 ms'],
    ['ms', -1.5, '-1.500 ms'],
    // rates move in percentage points
    ['ratio', 0.005, '+0.50pp'],
    ['per_s', 0, '0.0/s'],
  ] as const)('formats the delta %s %d as %s', (unit, delta, expected) => {
    expect(formatDelta(unit, delta)).toBe(expected);
  });

  it.each([
    [0.123, 1, '+12.3%'],
    [-0.05, -1, '-5.0%'],
    // from zero
    [null, 2, 'new'],
    [null, null, '—'],
  ])('formats the relative change %j as %s', (relative, delta, expected) => {
    expect(formatRelative(relative, delta)).toBe(expected);
  });

  it('renders an aligned terminal table without colour, hostile names sanitized', () => {
    const c = sample();
    const table = renderComparisonTable(c, { color: false });
    expect(table).not.toMatch(CONTROL);
    const lines = table.split('\n');
    const header = lines.find((l) => l.startsWith('scope'))!;
    // Every row puts its verdict where the header's verdict column starts.
    const verdictAt = header.indexOf('verdict');
    for (const line of lines.filter((l) => /^(overall|ping|check)\s/.test(l))) expect(line.slice(verdictAt)).toMatch(/^(regression|worse|improvement|within noise|ok|n\/a)/);
    expect(table).toContain('REGRESSION');
    for (const text of regressionLines(c)) expect(table).toContain(text);
  });

  it('colours only the verdicts when asked to', () => {
    const table = renderComparisonTable(sample(), { color: true });
    // eslint-disable-next-line no-control-regex
    expect(table).toMatch(/\u001b\[1;31mregression \(p99:\+10%\+1ms\)\u001b\[0m/);
    // Besides the SGR colour codes there is nothing a terminal would act on.
    // eslint-disable-next-line no-control-regex
    expect(table.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(CONTROL);
  });

  it('renders markdown with the regressions first and untrusted names in escaped code spans', () => {
    const c = sample();
    const md = renderComparisonMarkdown(c);
    expect(md).toMatch(/^### rpcload compare: 🔴 \d+ regressions?\n/);
    expect(md).not.toMatch(CONTROL);
    const rows = md.split('\n').filter((l) => l.startsWith('| '));
    const data = rows.slice(1);
    expect(data).toHaveLength(c.rows.length);
    // Regressions first, then the others in severity order.
    const verdicts = data.map((l) => /\| (?:\*\*)?(regression|worse|improvement|within noise|ok|n\/a)(?:\*\*)?(?: \(.*\))? \|$/.exec(l)?.[1]);
    expect(verdicts.slice(0, c.counts.regression)).toEqual(Array(c.counts.regression).fill('regression'));
    expect(verdicts.indexOf('ok')).toBeGreaterThan(verdicts.lastIndexOf('worse'));
    // A hostile name cannot add table columns or leave its code span.
    const columns = (line: string) => line.replace(/\\\|/g, '').split('|').length;
    for (const line of rows) expect(columns(line)).toBe(columns(rows[0]!));
    const hostileLines = data.filter((l) => l.includes('script'));
    expect(hostileLines.length).toBeGreaterThan(METRICS.length - 1); // the method's rows (goodput is overall only) and the check's
    for (const line of hostileLines) expect(line).toMatch(/\| `(check-)?<script>alert\(1\)<\/script>\\\|'x'` \|/);
    expect(markdownCode(HOSTILE)).toBe("`<script>alert(1)</script>\\|'x'`");
  });

  it('says when nothing regressed', () => {
    const same = compareRuns({ label: 'a', result: makeResult({ seed: 1 }) }, { label: 'b', result: makeResult({ seed: 2 }) }, { rules: parseFailOnRules(DEFAULT_FAIL_ON) });
    expect(renderComparisonMarkdown(same)).toMatch(/^### rpcload compare: 🟢 no regression\n/);
    expect(renderComparisonTable(same, { color: false })).toContain('OK: no regression');
  });
});
