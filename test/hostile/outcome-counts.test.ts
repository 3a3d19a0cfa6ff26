/**
 * compare, merge and report refuse a result file whose outcome counts cannot be a run's (issue 28
 * §25): 100,000 outcome keys, or outcomes adding up to more requests than the file records — as
 * they refuse histograms of other requests — in one line naming the file and the JSON path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import { makeResult } from '../support/result-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'rpcload-outcome-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = makeResult({ seed: 1, rps: 50, durationS: 10 });
const basePath = join(dir, 'base.json');
writeFileSync(basePath, JSON.stringify(base));

function write(name: string, result: RunResult): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(result));
  return path;
}

const flood = write('flood.json', {
  ...base,
  summary: {
    ...base.summary,
    outcomes: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`error:e${i}`, 1])),
  },
});
const inflated = write('inflated.json', {
  ...base,
  byMethod: Object.fromEntries(
    Object.entries(base.byMethod).map(([name, stats]) => [
      name,
      { ...stats, outcomes: { ...stats.outcomes, success: stats.requests * 2 } },
    ]),
  ),
});
const method = Object.keys(base.byMethod)[0]!;

describe('outcome counts that cannot be a run', () => {
  it.each([
    [
      '100,000 outcome keys',
      flood,
      /\/flood\.json: \/summary\/outcomes: holds 100000 outcome keys; expected at most 1000/,
    ],
    [
      'counts beyond the requests',
      inflated,
      new RegExp(
        `/inflated\\.json: /byMethod/${method}/outcomes: counts add up to \\d+, but /byMethod/${method}/requests is \\d+$`,
      ),
    ],
  ])('%s: read refuses, naming the file and the JSON path', async (_name, path, message) => {
    await expect(readResultFile(path)).rejects.toThrow(message);
  });

  it('compare, merge and report: one line, exit 2', async () => {
    for (const args of [
      ['compare', 'base.json', 'flood.json'],
      ['merge', 'base.json', 'flood.json', '--force', '--out', 'merged.json'],
      ['report', 'flood.json', '--out', 'report.html'],
    ]) {
      const result = await runRpcload(args, { cwd: dir });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^rpcload: flood\.json: \/summary\/outcomes: holds 100000 outcome keys/),
      ]);
    }
  }, 90_000);

  it('a real file passes', async () => {
    await expect(readResultFile(basePath)).resolves.toMatchObject({ schema: 'rpcload/result@1' });
  });
});
