import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { RpcloadError } from '../../src/errors.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import {
  compactUtcStamp,
  defaultResultPath,
  fileSafeName,
  writeResultFile,
} from '../../src/result-file/write-result.ts';
import { sampleResult } from '../support/recorder-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

let dir: string;
beforeEach(() => {
  dir = useTempDir('rpcload-write-');
});

const result = sampleResult();

describe('writeResultFile', () => {
  it('writes pretty JSON with a trailing newline, creating the directory', async () => {
    const path = join(dir, 'nested', 'deeper', 'run.json');
    await writeResultFile(path, result);
    const text = await readFile(path, 'utf8');
    expect(text).toBe(`${JSON.stringify(result, null, 2)}\n`);
    expect(await readdir(join(dir, 'nested', 'deeper'))).toEqual(['run.json']);
  });

  it('replaces a file atomically: a reader polling meanwhile sees the old or the new file, never a partial one', async () => {
    const path = join(dir, 'run.json');
    const old: RunResult = { ...result, run: { ...result.run, status: 'running' } };
    await writeResultFile(path, old);
    // A much larger new version takes several writes to the temp file.
    const big: RunResult = {
      ...result,
      warnings: Array.from({ length: 20_000 }, (_, i) => `warning ${i} ${'x'.repeat(40)}`),
    };
    const seen = new Set<string>();
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const parsed = JSON.parse(await readFile(path, 'utf8')) as RunResult;
        seen.add(
          parsed.warnings.length === big.warnings.length ? 'new' : parsed.run.status === 'running' ? 'old' : 'other',
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await writeResultFile(path, big);
    writing = false;
    await reader;
    expect([...seen].filter((s) => s === 'other')).toEqual([]);
    expect(seen.has('old')).toBe(true);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(big);
    expect(await readdir(dir)).toEqual(['run.json']); // temp file renamed away, nothing left
  });

  it('fails with a one-line RpcloadError and leaves no temp file when the target cannot be replaced', async () => {
    const path = join(dir, 'taken');
    await mkdir(path); // a directory where the file should go: the rename fails
    const error = await writeResultFile(path, result).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcloadError);
    expect((error as RpcloadError).message).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot write the result file: E[A-Z]+$`),
    );
    expect((error as RpcloadError).exitCode).toBe(2);
    expect(await readdir(dir)).toEqual(['taken']);
  });

  it('writes into a target that is not a regular file (a FIFO, like /dev/null) instead of replacing it', async () => {
    const path = join(dir, 'pipe');
    execFileSync('mkfifo', [path]);
    const received = new Promise<string>((resolve, reject) => {
      let text = '';
      createReadStream(path, 'utf8')
        .on('data', (chunk) => (text += String(chunk)))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    await writeResultFile(path, result);
    expect(JSON.parse(await received)).toEqual(result);
    expect((await stat(path)).isFIFO()).toBe(true); // still the FIFO, not a regular file renamed over it
  });

  it('fails cleanly when the directory cannot be created', async () => {
    const blocker = join(dir, 'file');
    await writeFile(blocker, 'x');
    await expect(writeResultFile(join(blocker, 'sub', 'run.json'), result)).rejects.toThrow(
      /cannot write the result file: E(NOTDIR|EXIST)/,
    );
  });
});

describe('defaultResultPath', () => {
  const startedAt = new Date('2026-11-22T12:55:00.456Z');

  it.each([
    ['demo', 'demo'], // plain
    ['rate limit soak!', 'rate-limit-soak'], // spaces and punctuation
    ['../../etc/passwd', 'etc-passwd'], // no path tricks, no hidden file
    ['', 'run'], // nothing usable
    ['ünïcode', 'n-code'], // letters outside ASCII are not filesystem-safe everywhere
  ])('names a run of profile %j after its UTC start and %j', (profile, safe) => {
    expect(fileSafeName(profile)).toBe(safe);
    expect(defaultResultPath(profile, startedAt, dir)).toBe(join(dir, `${compactUtcStamp(startedAt)}-${safe}.json`));
  });

  it('formats the stamp as compact UTC', () => {
    const iso = startedAt.toISOString();
    expect(compactUtcStamp(startedAt)).toBe(
      `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`,
    );
  });

  it('appends -2, -3 … when the name is taken', async () => {
    const first = defaultResultPath('demo', startedAt, dir);
    await writeFile(first, '{}');
    const second = defaultResultPath('demo', startedAt, dir);
    expect(second).toBe(first.replace(/\.json$/, '-2.json'));
    await writeFile(second, '{}');
    expect(defaultResultPath('demo', startedAt, dir)).toBe(first.replace(/\.json$/, '-3.json'));
  });

  it('defaults to the results directory', () => {
    expect(defaultResultPath('demo', startedAt).startsWith(join('results', compactUtcStamp(startedAt)))).toBe(true);
  });
});
