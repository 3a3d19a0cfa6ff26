/**
 * Properties of reading result files (compare, merge, report): a file with any field replaced by
 * any JSON value is read or refused as an RpcloadError, one line per problem naming the file —
 * never another kind of throw; histograms swapped between sections are always refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import { decodeHistogram } from '../../src/metrics/hdr.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-result-prop-');
const base = makeResult({ seed: 7, rps: 20, durationS: 5, methods: { ping: 2, echo: 1 }, clients: 3 });

/** Every path into a JSON value (as key lists), the root excluded. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

function at(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], value);
}

function replaceAt(value: unknown, path: readonly string[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as Record<string, unknown>) }) as Record<
    string,
    unknown
  >;
  copy[head!] = replaceAt(copy[head!], rest, replacement);
  return copy;
}

async function read(value: unknown, name: string): Promise<unknown> {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return readResultFile(file).then(
    () => null,
    (err: unknown) => err,
  );
}

function expectOneLinePerProblem(err: unknown, name: string): void {
  expect(err).toBeInstanceOf(RpcloadError);
  for (const line of (err as Error).message.split('\n'))
    expect(line.startsWith(`${join(dir, name)}: `), line).toBe(true);
}

const histogramPaths = pathsOf(base.histograms, ['histograms']).filter((path) => typeof at(base, path) === 'string');

describe('result files (property)', () => {
  it('the fixture itself is read', async () => {
    expect(await read(base, 'base.json')).toBeNull();
  });

  it('any field replaced by any JSON value: read, or refused in one line per problem', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pathsOf(base)), fc.jsonValue({ maxDepth: 2 }), async (path, replacement) => {
        const err = await read(replaceAt(base, path, replacement), 'mutated.json');
        if (err !== null) expectOneLinePerProblem(err, 'mutated.json');
      }),
      { numRuns: 150 },
    );
  });

  it('a histogram swapped with one that holds another count is always refused, naming its JSON path', async () => {
    const pairs = histogramPaths.flatMap((a) =>
      histogramPaths
        .filter(
          (b) =>
            decodeHistogram(at(base, a) as string).totalCount !== decodeHistogram(at(base, b) as string).totalCount,
        )
        .map((b) => [a, b] as const),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...pairs), async ([a, b]) => {
        const swapped = replaceAt(replaceAt(base, a, at(base, b)), b, at(base, a));
        const err = await read(swapped, 'swapped.json');
        expectOneLinePerProblem(err, 'swapped.json');
        expect((err as Error).message).toMatch(/: \/histograms\/\S+: holds \d+ values, but \/\S+ is \d+/);
      }),
      { numRuns: 60 },
    );
  });
});
