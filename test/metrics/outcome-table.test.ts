import { describe, expect, it } from 'vitest';
import {
  countsRecord,
  MAX_OUTCOME_KEYS,
  OUTCOME_OTHER,
  OUTCOME_SLOTS,
  OutcomeTable,
} from '../../src/metrics/outcome-table.ts';

describe('OutcomeTable', () => {
  it('gives each distinct key a stable dense index', () => {
    const table = new OutcomeTable();
    const keys = ['success', 'error:not_found', 'http:502', 'success', 'http:502'];
    const indices = keys.map((k) => table.indexOf(k));
    expect(indices).toEqual([0, 1, 2, 0, 2]);
    expect(table.keys).toEqual(['success', 'error:not_found', 'http:502']);
  });

  it('folds new error keys into error:other past the cap, counting error:other in the cap', () => {
    const table = new OutcomeTable();
    const invented = Array.from({ length: MAX_OUTCOME_KEYS * 3 }, (_, i) => `error:invented_${i}`);
    for (const key of invented) table.indexOf(key);
    expect(table.keys).toHaveLength(MAX_OUTCOME_KEYS);
    expect(table.keys).toContain(OUTCOME_OTHER);
    // The first MAX-1 keys kept their own slot; every later one maps to error:other.
    expect(table.keyOf(invented[0]!)).toBe(invented[0]);
    expect(table.keyOf(invented[MAX_OUTCOME_KEYS - 2]!)).toBe(invented[MAX_OUTCOME_KEYS - 2]);
    expect(table.keyOf(invented[MAX_OUTCOME_KEYS - 1]!)).toBe(OUTCOME_OTHER);
    expect(table.keyOf(invented.at(-1)!)).toBe(OUTCOME_OTHER);
  });

  it.each([
    ['success'], // would turn a success into an error
    ['error:rate_limit_exceeded'], // would hide 429s
    ['http:429'], // a 429 without envelope is still rate-limited
  ])('never folds the non-error key %s, even past the cap', (key) => {
    const table = new OutcomeTable();
    for (let i = 0; i < MAX_OUTCOME_KEYS * 2; i++) table.indexOf(`error:invented_${i}`);
    expect(table.keyOf(key)).toBe(key);
    expect(table.keys.length).toBeLessThanOrEqual(OUTCOME_SLOTS);
  });

  it('sanitizes keys once and maps spellings that sanitize alike to one key', () => {
    const table = new OutcomeTable();
    const a = table.indexOf('error:evil\u001b[2Jcode');
    const b = table.indexOf('error:evilcode');
    expect(a).toBe(b);
    expect(table.keys).toEqual(['error:evilcode']);
  });

  it('stays bounded when endless raw spellings sanitize to kept keys', () => {
    const table = new OutcomeTable();
    const long = `error:${'x'.repeat(200)}`;
    for (let i = 0; i < 10_000; i++) table.indexOf(`${long}${i}`);
    expect(table.keys).toHaveLength(1);
    expect(table.keyOf(`${long}12345`)).toBe(table.keys[0]);
    // The memo of raw spellings is private; reach in to check the bound that matters here.
    const memo = (table as unknown as { indexByRaw: Map<string, number> }).indexByRaw;
    expect(memo.size).toBeLessThanOrEqual(4 * MAX_OUTCOME_KEYS);
  });

  it('lists only non-zero counters, by key', () => {
    expect(countsRecord(['a', 'b', 'c'], [2, 0, 5])).toEqual({ a: 2, c: 5 });
  });
});
