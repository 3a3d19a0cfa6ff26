/**
 * Result files on disk: the default path of a run's file, checking before a run that it can be
 * written, and writing one atomically (to a fallback in the temp directory when that still fails).
 */
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { RpcloadError } from '../errors.ts';
import type { RunResult } from '../contract/result-schema.ts';
import { redactSecrets } from '../util/redact.ts';

/** `2026-11-22T12:55:00.123Z` → `20261122T125500Z`: sortable, and safe on every filesystem. */
export function compactUtcStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** A profile name as a file name part: letters, digits, `.`, `_`, `-` only; never empty or hidden. */
export function fileSafeName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, 64);
  return safe.length > 0 ? safe : 'run';
}

/**
 * `results/20261122T125500Z-demo.json` for a run of profile `demo` started then (UTC). When that
 * file exists already (two runs in one second), `-2`, `-3`, … are appended before `.json`.
 */
export function defaultResultPath(profileName: string, startedAt: Date, dir = 'results'): string {
  const stem = join(dir, `${compactUtcStamp(startedAt)}-${fileSafeName(profileName)}`);
  let path = `${stem}.json`;
  for (let n = 2; existsSync(path); n++) path = `${stem}-${n}.json`;
  return path;
}

/** `--out -`: the result file goes to stdout (for engines whose pods share no volume). */
export const STDOUT_PATH = '-';

/**
 * The last line of defence before disk: every known secret and token scrubbed from every value and
 * key (the encoded histograms excepted: they are binary data, and a short secret could match by chance).
 */
function redactResult(result: RunResult): RunResult {
  return Object.fromEntries(
    Object.entries(result).map(([key, value]) => [key, key === 'histograms' ? value : redactSecrets(value)]),
  ) as RunResult;
}

/** True when `path` exists and is not a regular file (a device such as /dev/null, a FIFO …). */
async function isSpecialFile(path: string): Promise<boolean> {
  try {
    return !(await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Refuse, before any load starts, a result path that cannot be written: a directory, a device
 * that refuses writes (`/dev/full`), a place where no file can be created (`/proc/…`, below a
 * regular file, a read-only directory). Probes with what the final write does: a temporary file
 * created next to the target (its directory is created as the write would), or, for a character
 * device, one newline written to it. Throws a one-line RpcloadError (exit 2).
 */
export async function assertResultPathWritable(path: string, flag = '--out', what = 'the result file'): Promise<void> {
  const refuse = (why: string): RpcloadError => new RpcloadError('bad_flag', `${flag} ${path}: cannot write ${what} there (${why})`);
  const stats = await stat(path).catch(() => null);
  if (stats?.isDirectory()) throw refuse('it is a directory');
  try {
    if (stats !== null && stats.isCharacterDevice()) await writeFile(path, '\n', { flag: 'a' });
    else if (stats !== null && !stats.isFile())
      await access(path, constants.W_OK); // a FIFO: opening it would block
    else {
      const dir = dirname(path);
      await mkdir(dir, { recursive: true });
      const probe = join(dir, `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.probe`);
      await (await open(probe, 'wx')).close();
      await rm(probe, { force: true });
    }
  } catch (err) {
    throw refuse((err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
}

/** Where a result file goes when its own path cannot be written at the end: the OS temp directory. */
export function fallbackResultPath(path: string, now = new Date()): string {
  return join(tmpdir(), `rpcload-${compactUtcStamp(now)}-${process.pid}-${fileSafeName(basename(path))}`);
}

/** Where the result file was written, and why not at the path asked for (null when it was). */
export interface WrittenResult {
  readonly path: string;
  readonly problem: string | null;
}

/**
 * Write the final result file; when that fails (the disk filled up, the directory went away
 * during the run), write it to a fallback path instead so that the run's data is never lost, and
 * say so. Throws only when the fallback fails too.
 */
export async function writeFinalResultFile(path: string, result: RunResult): Promise<WrittenResult> {
  try {
    await writeResultFile(path, result);
    return { path, problem: null };
  } catch (err) {
    if (!(err instanceof RpcloadError)) throw err;
    const fallback = fallbackResultPath(path);
    await writeResultFile(fallback, result);
    return { path: fallback, problem: `${err.message}; wrote it to ${fallback} instead` };
  }
}

/**
 * Write a result file atomically: pretty JSON into a temporary file in the same directory
 * (created if needed), flushed to disk, then renamed over the target — a reader, or a crash
 * mid-write, sees the old file or the new one, never half of one. Checkpoints rely on this.
 * A target that exists but is not a regular file (`--out /dev/null`, a FIFO) is written in place:
 * renaming over it would replace the device with a plain file.
 */
export async function writeResultFile(path: string, result: RunResult): Promise<void> {
  const text = `${JSON.stringify(redactResult(result), null, 2)}\n`;
  if (path === STDOUT_PATH) {
    await new Promise<void>((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
    return;
  }
  if (await isSpecialFile(path)) {
    try {
      await writeFile(path, text, 'utf8');
      return;
    } catch (err) {
      throw new RpcloadError(
        'write_failed',
        `${path}: cannot write the result file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  }
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const file = await open(temp, 'wx');
    try {
      await file.writeFile(text, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true }).catch(() => undefined);
    const code = (err as NodeJS.ErrnoException).code;
    throw new RpcloadError('write_failed', `${path}: cannot write the result file: ${code ?? (err as Error).message}`);
  }
}
