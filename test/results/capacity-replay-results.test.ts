/**
 * A replay's capacity (its loads are speeds of the recording) as the results read it: the step
 * table in ×, compare's bracket in the unit of its answer (calls per second), with or without an
 * answer.
 */
import { describe, expect, it } from 'vitest';
import type { CapacityRecord, CapacityStep } from '../../src/contract/capacity-schema.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { capacityStepRows, renderCapacityMarkdown } from '../../src/results/capacity-summary.ts';
import { compareCapacity, renderCapacityComparison } from '../../src/results/compare/compare-capacity.ts';
import { capacityResult } from '../support/capacity-fixtures.ts';

/** The recording's calls per second at 1×. */
const PER_SPEED = 20.123;

/** A replay capacity file: the fixture's steps with speeds for loads and the schedule's rate offered. */
function replayResult(answer: number | null, bracket: [number | null, number | null]): RunResult {
  const base = capacityResult({ seed: 1, ratePerS: 100 });
  const speeds = [1, 2, 4, 3, 2.5, 2.2, 2.1];
  const steps: CapacityStep[] = speeds.map((speed, i) => ({
    ...base.capacity!.steps[0]!,
    index: i + 1,
    load: speed,
    offeredPerS: Math.round(speed * PER_SPEED * 1000) / 1000,
    verdict: speed <= (answer ?? 0) ? 'pass' : 'fail',
  }));
  const record: CapacityRecord = {
    ...base.capacity!,
    ratePerS: answer === null ? null : Math.round(answer * PER_SPEED * 1000) / 1000,
    speed: answer,
    bracket,
    confirmation: null,
    steps,
  };
  return { ...base, capacity: record };
}

describe('a replay capacity in the results', () => {
  it('heads its loads as speeds and prints them in ×', () => {
    const record = replayResult(2, [2, 2.1]).capacity!;
    const [head, first] = capacityStepRows(record);
    expect(head).toMatch(/^\s+speed\s+offered\/s/);
    expect(first).toMatch(/^step 1\s+1×\s+20\.1/);
    expect(capacityStepRows({ ...record, speed: undefined })[1]).toMatch(/^step 1\s+1\/s/);
    expect(renderCapacityMarkdown(replayResult(2, [2, 2.1]), 'x.json')).toContain('| step | speed | offered/s');
    expect(renderCapacityMarkdown(replayResult(2, [2, 2.1]), 'x.json')).toContain('| search 2 | 2× |');
  });

  it.each<[string, number | null, [number | null, number | null], string]>([
    ['with an answer', 2, [2, 2.1], '40.246/s  bracket [40.246, 42.258]'],
    ['without an answer (nothing passed)', null, [null, 1], 'none  bracket [–, 20.123]'],
  ])('compare prints the bracket in calls per second, %s', (_, answer, bracket, line) => {
    const head = { label: 'head.json', result: replayResult(answer, bracket) };
    const text = renderCapacityComparison(compareCapacity({ label: 'base.json', result: replayResult(2, [2, 2.1]) }, head, null));
    expect(text.split('\n')[2]).toContain(`head  ${line}`);
  });
});
