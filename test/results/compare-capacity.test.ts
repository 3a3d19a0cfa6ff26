import { describe, expect, it } from 'vitest';
import { compareCapacity, renderCapacityComparison, renderCapacityComparisonMarkdown } from '../../src/results/compare/compare-capacity.ts';
import { capacityResult } from '../support/capacity-fixtures.ts';
import { makeResult, schemaProblems } from '../support/result-fixtures.ts';

const file = (label: string, ratePerS: number, extra: Partial<Parameters<typeof capacityResult>[0]> = {}) => ({
  label,
  result: capacityResult({ seed: 1, ratePerS, ...extra }),
});

describe('compare of capacity files', () => {
  it('builds valid capacity fixtures', () => {
    expect(schemaProblems(capacityResult({ seed: 1, ratePerS: 300 }))).toEqual([]);
  });

  it('calls a drop beyond the rule and the brackets a regression, and prints both knees', () => {
    const c = compareCapacity(file('base.json', 300, { label: 'v1.0' }), file('head.json', 250, { label: 'v1.1' }), null);
    expect(c).toMatchObject({ verdict: 'regression', regression: true, rule: 'capacity:-10%' });
    expect(c.change).toBeCloseTo(-1 / 6, 6);
    const text = renderCapacityComparison(c);
    expect(text).toContain('base  300/s  bracket [300, 312]');
    expect(text).toContain('head  250/s  bracket [250, 260]');
    expect(text).toContain('v1.1');
    expect(renderCapacityComparisonMarkdown(c)).toContain('🔴 regression');
  });

  it('is noise-aware: a drop within the rule, or whose bracket reaches back, is no regression', () => {
    expect(compareCapacity(file('a', 300), file('b', 285), null)).toMatchObject({ regression: false });
    // 268 is 10.7 % down, but its bracket reaches 280: the true capacity may be only 6.7 % lower.
    expect(compareCapacity(file('a', 300), file('b', 268, { firstFail: 280 }), null)).toMatchObject({ regression: false, verdict: 'worse' });
    expect(compareCapacity(file('a', 300), file('b', 240, { atLeast: true, firstFail: null }), null).regression).toBe(false);
    expect(compareCapacity(file('a', 300), file('b', 340), null).verdict).toBe('improvement');
  });

  it('honours a written rule, and none', () => {
    expect(compareCapacity(file('a', 300), file('b', 270), 'capacity:-5%').regression).toBe(true);
    expect(compareCapacity(file('a', 300), file('b', 200), 'none').regression).toBe(false);
    expect(() => compareCapacity(file('a', 300), file('b', 200), 'capacity:+5%')).toThrow(/expected capacity:-N%/);
  });

  it('refuses to compare a capacity file with a run file', () => {
    expect(() => compareCapacity(file('a', 300), { label: 'run.json', result: makeResult({ seed: 2 }) }, null)).toThrow(
      /run.json: run.kind: expected a capacity result/,
    );
  });
});
