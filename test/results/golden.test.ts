/**
 * Golden files for the two outputs other tools and people diff between releases: the result file
 * (rpcload/result@1, built from seeded samples exactly as a run builds it) and `compare` in all
 * three formats. A change to either shows in review as a change to test/golden/. Regenerate
 * deliberately with: UPDATE_GOLDEN=1 npx vitest run test/results/golden.test.ts
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compareRuns } from '../../src/results/compare/compare-runs.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { renderComparisonMarkdown } from '../../src/results/compare/render-markdown.ts';
import { renderComparisonTable } from '../../src/results/compare/render-table.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { TOOL } from '../../src/version.ts';
import { sampleResult } from '../support/recorder-fixtures.ts';
import { makeResult } from '../support/result-fixtures.ts';

const GOLDEN_DIR = fileURLToPath(new URL('../golden/', import.meta.url));

function expectGolden(name: string, actual: string): void {
  const path = `${GOLDEN_DIR}${name}`;
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(path, actual);
  expect(existsSync(path), `test/golden/${name} is missing; create it with UPDATE_GOLDEN=1 npx vitest run test/results/golden.test.ts`).toBe(true);
  expect(actual, `${name} differs from test/golden/${name}; if the change is intended, run UPDATE_GOLDEN=1 npx vitest run test/results/golden.test.ts`).toBe(readFileSync(path, 'utf8'));
}

/** The tool version is the one field that changes with every release, not with the format. */
const versionless = (text: string): string => text.split(`"version": ${JSON.stringify(TOOL.version)}`).join('"version": "<version>"');

describe('golden files', () => {
  it('result file', () => {
    const result = sampleResult();
    expect(validateRunResult(result)).toEqual([]);
    expectGolden('result.json', versionless(`${JSON.stringify(result, null, 2)}\n`));
  });

  describe('compare', () => {
    const base = makeResult({ seed: 1, durationS: 20 });
    const head = makeResult({ seed: 2, durationS: 20, latencyMs: { median: 26, spread: 0.5 }, errorRate: 0.02 });
    const comparison = compareRuns({ label: 'base.json', result: base }, { label: 'head.json', result: head }, { rules: parseFailOnRules(DEFAULT_FAIL_ON) });

    it('table', () => expectGolden('compare.txt', renderComparisonTable(comparison, { color: false })));
    it('markdown', () => expectGolden('compare.md', renderComparisonMarkdown(comparison)));
    it('json', () => expectGolden('compare.json', `${JSON.stringify(comparison, null, 2)}\n`));
  });
});
