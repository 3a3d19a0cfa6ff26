/**
 * Result files on disk: the default path of a run's file, checking before a run that it can be
 * written, and writing one atomically (to a fallback in the temp directory when that still fails).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { RpcloadError } from '../errors.ts';
import type { RunResult } from '../contract/result-schema.ts';
import { assertSafeOutput, writeFileAtomically } from '../util/output-files.ts';
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

/**
 * Refuse, before any load starts, a path that cannot be written: a directory; a FIFO, socket or
 * device other than /dev/null (opening or writing one can block forever, past every deadline and
 * Ctrl-C: `/dev/full` too, which refuses every write); a place where no file can be created
 * (`/proc/…`, below a regular file, a read-only directory). Probes with what the final write does:
 * a temporary file created next to the target (its directory is created as the write would).
 * Throws a one-line RpcloadError (exit 2).
 */
export async function assertResultPathWritable(path: string, flag = '--out', what = 'the result file'): Promise<void> {
  const refuse = (why: string): RpcloadError =>
    new RpcloadError('bad_flag', `${flag} ${path}: cannot write ${what} there (${why})`);
  const stats = await stat(path).catch(() => null);
  if (stats?.isDirectory()) throw refuse('it is a directory');
  await assertSafeOutput(path, flag, what);
  if (stats !== null && !stats.isFile()) return; // /dev/null
  try {
    const dir = dirname(path);
    await mkdir(dir, { recursive: true });
    const probe = join(dir, `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.probe`);
    await (await open(probe, 'wx')).close();
    await rm(probe, { force: true });
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
 * say so. What is still at the path asked for (the run's last checkpoint, `"status": "running"`,
 * or an older file) is not this run's result: it is removed, so that whatever reads that path next
 * fails instead of taking a stale file for it. Throws only when the fallback fails too.
 */
export async function writeFinalResultFile(path: string, result: RunResult): Promise<WrittenResult> {
  try {
    await writeResultFile(path, result);
    return { path, problem: null };
  } catch (err) {
    if (!(err instanceof RpcloadError)) throw err;
    const fallback = fallbackResultPath(path);
    await writeResultFile(fallback, result);
    const stale = (await stat(path).catch(() => null))?.isFile() === true;
    const removed =
      stale &&
      (await rm(path).then(
        () => true,
        () => false,
      ));
    const note = removed ? ` (and removed the stale file at ${path})` : stale ? ` (the file at ${path} is stale)` : '';
    return { path: fallback, problem: `${err.message}; wrote it to ${fallback} instead${note}` };
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
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomically(path, text);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RpcloadError('write_failed', `${path}: cannot write the result file: ${code ?? (err as Error).message}`);
  }
}
