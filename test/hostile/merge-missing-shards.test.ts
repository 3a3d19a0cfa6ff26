/**
 * A merge refused for missing shards names the missing ones, compactly (issue 28 §26): 199 of 200
 * shards present used to make a 1 KB line listing every index present.
 */
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { checkShardSet } from '../../src/results/merge/shard-set.ts';
import { makeResult } from '../support/result-fixtures.ts';

const base = makeResult({ seed: 1, durationS: 5 });
const shardFile = (index: number, count: number): { label: string; result: RunResult } => ({
  label: `shard-${index}.json`,
  result: {
    ...base,
    run: { ...base.run, shard: { runId: 'nightly-42', index, count, clients: 1, startAt: null, startLateMs: null } },
  },
});
const shardsExcept = (count: number, missing: readonly number[]) =>
  Array.from({ length: count }, (_, i) => i + 1)
    .filter((index) => !missing.includes(index))
    .map((index) => shardFile(index, count));

describe('a merge with shards missing', () => {
  it('199 of 200: one short line naming shard 200 only', () => {
    expect(() => checkShardSet(shardsExcept(200, [200]), false)).toThrow(
      /^cannot merge: shard 200 of 200 of run nightly-42 is missing \(have 199 of 200\); merge --partial merges the shards present and marks the result partial$/,
    );
  });

  it('gaps are named as ranges', () => {
    expect(() => checkShardSet(shardsExcept(200, [1, 2, 3, 50, 120, 121, 200]), false)).toThrow(
      /^cannot merge: shards 1–3, 50, 120–121, 200 of 200 of run nightly-42 are missing \(have 193 of 200\);/,
    );
  });

  it('--partial: the warning names the covered shards as ranges too', () => {
    const checked = checkShardSet(shardsExcept(200, [7]), true);
    expect(checked!.warnings).toEqual([
      'partial merge: shard 7 of 200 missing; counts, checks and thresholds cover only shards 1–6, 8–200',
    ]);
    expect(checked!.set.missing).toEqual([7]);
  });
});
