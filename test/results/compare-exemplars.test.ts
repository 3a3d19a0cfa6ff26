/** `compare` points at the traces behind a latency regression: the head run's slowest exemplars of each regressed scope. */
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/results/compare/compare-runs.ts';
import { parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { renderComparisonMarkdown } from '../../src/results/compare/render-markdown.ts';
import { renderComparisonTable } from '../../src/results/compare/render-table.ts';
import { buildRunResult } from '../../src/session/result/build-result.ts';
import { buildInput, DIMS, recordedData, recorderSamples } from '../support/recorder-fixtures.ts';

const samples = recorderSamples(6000, 21, 20);
const base = buildRunResult(buildInput(recordedData(samples)));
// The head: the first method twice as slow, everything else as it was.
const slower = samples.map((s) => (s.methodIndex === 0 ? { ...s, latencyUs: s.latencyUs * 2, serviceUs: s.serviceUs * 2 } : s));
const head = buildRunResult(buildInput(recordedData(slower)));
const slowMethod = DIMS.methods[0]!;

describe('compare next to a latency regression', () => {
  const comparison = compareRuns(
    { label: 'base.json', result: base },
    { label: 'head.json', result: head },
    { rules: parseFailOnRules(`${slowMethod}:p99:+20%`) },
  );

  it('lists the head run’s five slowest exemplars of each regressed scope, slowest first', () => {
    expect(comparison.regression).toBe(true);
    const scopes = comparison.slowestInHead!.map((s) => s.method);
    expect(scopes).toContain(slowMethod);
    expect(scopes).not.toContain(DIMS.methods[1]); // unchanged methods have no regression to explain
    const own = comparison.slowestInHead!.find((s) => s.method === slowMethod)!;
    const expected = head.exemplars![slowMethod]!.filter((e) => e.kinds.includes('slowest')).slice(0, 5);
    expect(own.exemplars.map((e) => e.traceId)).toEqual(expected.map((e) => e.traceId));
  });

  it('shows them in the terminal table and the markdown', () => {
    const first = comparison.slowestInHead!.find((s) => s.method === slowMethod)!.exemplars[0]!;
    expect(renderComparisonTable(comparison, { color: false })).toContain(`slowest in head, ${slowMethod}: ${first.traceId}`);
    expect(renderComparisonMarkdown(comparison)).toContain(`- slowest in head, \`${slowMethod}\`: \`${first.traceId}\``);
  });

  it('says nothing when nothing regressed', () => {
    const same = compareRuns({ label: 'a.json', result: base }, { label: 'b.json', result: base }, { rules: parseFailOnRules('p99:+20%') });
    expect(same.slowestInHead).toBeUndefined();
  });
});
