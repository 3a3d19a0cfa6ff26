/** `compare --format json` prints exactly the fields docs/compare-merge-report.md documents. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareRuns, type MetricRow, type StatusRow } from '../../src/results/compare/compare-runs.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { makeResult } from '../support/result-fixtures.ts';

const DOC = readFileSync(fileURLToPath(new URL('../../docs/compare-merge-report.md', import.meta.url)), 'utf8');
/** The "JSON output" section's table: field cell → meaning cell. */
const section = /### JSON output\n([\s\S]*?)\n### /.exec(DOC)![1]!;
const documented = new Map([...section.matchAll(/^\| ([^|]+) \| (.+) \|$/gm)].map((m) => [m[1]!.trim(), m[2]!]));
/** The backticked field names of a cell (`rows[]` is `rows`). */
const names = (cell: string): string[] => [...cell.matchAll(/`([\w /]+)(?:\[\])?`/g)].map((m) => m[1]!);

describe('compare --format json, as documented', () => {
  const check = { id: 'envelope', verdict: 'pass' as const, detail: 'ok', evidence: {} };
  const comparison = compareRuns(
    { label: 'base.json', result: makeResult({ seed: 1, durationS: 10, checks: [check] }) },
    { label: 'head.json', result: makeResult({ seed: 2, durationS: 10, checks: [check] }) },
    { rules: parseFailOnRules(DEFAULT_FAIL_ON) },
  );
  const json = JSON.parse(JSON.stringify(comparison)) as Record<string, unknown>;

  it('has the documented top-level fields, and only those', () => {
    const fields = [...documented.keys()].flatMap((cell) => names(cell));
    expect(Object.keys(json).sort()).toEqual(['schema', ...fields].sort());
    expect(json.schema).toBe('rpcload/compare@1');
  });

  it('documents every field of the runs, the rows and the counts', () => {
    const rows = json.rows as (MetricRow | StatusRow)[];
    const metric = rows.find((row) => row.type === 'metric')!;
    const status = rows.find((row) => row.type === 'check')!;
    const rowCell = documented.get('`rows[]`')!;
    const [metricPart, statusPart] = rowCell.split('; check and threshold rows:');
    // `workload` is on a workload's rows only (these runs have none).
    expect(Object.keys(metric).sort()).toEqual(
      [...new Set(names(metricPart!))].filter((name) => name !== 'workload').sort(),
    );
    expect(Object.keys(status).sort()).toEqual(names(statusPart!).sort());
    expect(
      Object.keys(json.base as object).every((key) => names(documented.get('`base`, `head`')!).includes(key)),
    ).toBe(true);
    expect(Object.keys(json.counts as object).sort()).toEqual(names(documented.get('`counts`')!).sort());
  });
});
