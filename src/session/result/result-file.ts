/** Result files on disk: the default path of a run's file, and writing one atomically. */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RpcloadError } from '../../errors.ts';
import type { RunResult } from '../../contract/result-schema.ts';

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

/** True when `path` exists and is not a regular file (a device such as /dev/null, a FIFO …). */
async function isSpecialFile(path: string): Promise<boolean> {
  try {
    return !(await stat(path)).isFile();
  } catch {
    return false;
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
  const text = `${JSON.stringify(result, null, 2)}\n`;
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
