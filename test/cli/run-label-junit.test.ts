import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { testcases, xmlProblems } from '../support/xml.ts';
import { useTempDir } from '../support/temp-dir.ts';

describe('rpcload run --label --junit', () => {
  it('stores the label in the result file and writes the thresholds and checks as JUnit test cases', async () => {
    const dir = useTempDir('rpcload-run-junit-');
    const out = join(dir, 'run.json');
    const junit = join(dir, 'run.xml');
    const run = await runRpcload([
      'run',
      '--rate',
      '20',
      '--duration',
      '2s',
      '--out',
      out,
      '--label',
      'release 2.4.0',
      '--junit',
      junit,
      '--ui',
      'none',
    ]);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(result.run.label).toBe('release 2.4.0');
    const xml = readFileSync(junit, 'utf8');
    expect(xmlProblems(xml)).toEqual([]);
    const cases = [...testcases(xml).keys()];
    expect(cases).toEqual([
      ...result.thresholds.map((t) => `threshold: ${t.expr.replace(/</g, '&lt;')}`),
      ...result.checks.map((c) => c.id),
    ]);
    const failures = (xml.match(/<failure /g) ?? []).length;
    expect(failures).toBe(
      result.thresholds.filter((t) => !t.ok).length + result.checks.filter((c) => c.verdict === 'fail').length,
    );
    expect(run.code).toBe(failures > 0 ? 1 : 0);
  }, 60_000);
});
