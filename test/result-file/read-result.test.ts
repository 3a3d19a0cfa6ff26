import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { RESULT_SCHEMA_ID } from '../../src/contract/result-schema.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { writeResultFile } from '../../src/result-file/write-result.ts';
import { sampleResult } from '../support/recorder-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-read-');

const result = sampleResult();

/** Write `content` (text or a value) and return readResultFile's error message. */
async function failureOf(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  const error = await readResultFile(path).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RpcloadError);
  expect((error as RpcloadError).exitCode).toBe(2);
  return (error as RpcloadError).message;
}

type Edit = readonly [path: readonly (string | number)[], value: unknown];

/** A JSON copy of the result with edits applied; an undefined value deletes the property. */
function edited(...edits: readonly Edit[]): unknown {
  const copy = JSON.parse(JSON.stringify(result)) as unknown;
  for (const [path, value] of edits) {
    let node = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    if (value === undefined) delete node[path.at(-1)!];
    else node[path.at(-1)!] = value;
  }
  return copy;
}

describe('readResultFile', () => {
  it('reads back what writeResultFile wrote', async () => {
    const path = join(dir, 'good.json');
    await writeResultFile(path, result);
    expect(await readResultFile(path)).toEqual(result);
  });

  it('tolerates a byte order mark', async () => {
    const path = join(dir, 'bom.json');
    await writeFile(path, `\uFEFF${JSON.stringify(result)}`);
    expect(await readResultFile(path)).toEqual(result);
  });

  it('names a file that cannot be read', async () => {
    const path = join(dir, 'missing.json');
    await expect(readResultFile(path)).rejects.toThrow(`${path}: cannot read the result file: no such file`);
  });

  it('gives line and column of broken JSON', async () => {
    const text = '{\n  "schema": "rpcload/result@1",\n  "tool": {,\n}';
    const message = await failureOf('broken.json', text);
    expect(message).toBe(
      `${join(dir, 'broken.json')}: not valid JSON at line 3, column 12: expected a property name in double quotes, found ","`,
    );
  });

  it.each([
    ['another version', 'rpcload/result@2', '"rpcload/result@2" (written by another rpcload version)'],
    ['another tool', 'k6/summary', '"k6/summary" (not an rpcload result file?)'],
    ['no schema at all', undefined, 'nothing (not an rpcload result file?)'],
  ])('rejects a file with %s as schema id', async (what, schema, found) => {
    const name = `schema-${what.replace(/ /g, '-')}.json`;
    const message = await failureOf(name, edited([['schema'], schema]));
    expect(message).toBe(`${join(dir, name)}: /schema: expected "${RESULT_SCHEMA_ID}", found ${found}`);
  });

  it('rejects JSON that is not an object', async () => {
    expect(await failureOf('array.json', '[1, 2]')).toBe(
      `${join(dir, 'array.json')}: /: expected an rpcload result file (a JSON object), found an array`,
    );
  });

  it('lists every schema problem, one line each, with its JSON path', async () => {
    const broken = edited(
      [['summary', 'requests'], -1],
      [['run', 'startedAt'], 'yesterday'],
      [['checks', 0, 'verdict'], 'maybe'],
      [['summary', 'scheduleLagMs', 'p99'], '3 ms'],
      [['timeline', 0, 'extra'], true],
      [['run', 'host'], undefined],
    );
    const file = join(dir, 'invalid.json');
    const lines = (await failureOf('invalid.json', broken)).split('\n');
    expect(lines.sort()).toEqual(
      [
        `${file}: /summary/requests: expected an integer ≥ 0, found -1`,
        `${file}: /run/startedAt: expected an ISO 8601 date-time string, found "yesterday"`,
        `${file}: /checks/0/verdict: expected one of "pass", "fail", "skip", found "maybe"`,
        `${file}: /summary/scheduleLagMs/p99: expected a number ≥ 0, found "3 ms"`,
        `${file}: /timeline/0/extra: expected no such property (not part of rpcload/result@1), found true`,
        `${file}: /run/host: expected a string, found nothing`,
      ].sort(),
    );
  });
});

describe('validateRunResult', () => {
  it('is empty for a built result and its JSON copy', () => {
    expect(validateRunResult(result)).toEqual([]);
  });

  it('caps a flood of problems with a count', () => {
    const flood = {
      ...result,
      byClient: Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`c${i}`, { requests: -1 }])),
    };
    const problems = validateRunResult(flood);
    expect(problems).toHaveLength(51);
    expect(problems.at(-1)).toMatch(/^… and \d+ more problems$/);
  });
});
