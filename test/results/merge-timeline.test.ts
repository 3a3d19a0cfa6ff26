import { describe, expect, it } from 'vitest';
import { mergeTimelines } from '../../src/results/merge/merge-timeline.ts';
import type { TimelineRow } from '../../src/contract/result-schema.ts';

const row = (t: number, requests: number, p50: number, p99: number, rateLimited = 0, errors = 0): TimelineRow => ({
  t,
  requests,
  success: requests - rateLimited - errors,
  rateLimited,
  errors,
  p50,
  p99,
});

describe('merged timelines', () => {
  it.each([
    // two shards in the same second: counts add, p50 request-weighted, p99 the larger
    [
      [{ offsetS: 0, rows: [row(0, 100, 10, 50, 5, 1)] }, { offsetS: 0, rows: [row(0, 300, 20, 40, 1, 2)] }],
      [row(0, 400, 17.5, 50, 6, 3)],
    ],
    // a shard that started a second later lands one second later
    [
      [{ offsetS: 0, rows: [row(0, 10, 1, 2), row(1, 10, 1, 2)] }, { offsetS: 1, rows: [row(0, 30, 3, 4)] }],
      [row(0, 10, 1, 2), row(1, 40, 2.5, 4)],
    ],
    // a second no shard covers is an empty row, so the timeline stays dense
    [
      [{ offsetS: 0, rows: [row(0, 10, 1, 2)] }, { offsetS: 2, rows: [row(0, 10, 1, 2)] }],
      [row(0, 10, 1, 2), row(1, 0, 0, 0), row(2, 10, 1, 2)],
    ],
    // a second without requests has no percentiles
    [[{ offsetS: 0, rows: [row(0, 0, 0, 0)] }, { offsetS: 0, rows: [row(0, 0, 0, 0)] }], [row(0, 0, 0, 0)]],
    // weighted p50 keeps the file's 3 decimals
    [[{ offsetS: 0, rows: [row(0, 1, 1, 1)] }, { offsetS: 0, rows: [row(0, 2, 2, 2)] }], [row(0, 3, 1.667, 2)]],
    // no shards, no rows
    [[], []],
  ])('case %#', (parts, expected) => {
    expect(mergeTimelines(parts)).toEqual(expected);
  });
});
