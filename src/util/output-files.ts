/**
 * The files a command writes, checked before it does any work and written so that a reader never
 * sees half of one. An output is a regular file (existing or to be created), `/dev/null`, or stdout
 * (`-`, where a command offers it) — never a FIFO, socket or device, whose open or write can block
 * forever with no way to interrupt it. No two of a command's files may be one file: two outputs
 * would overwrite each other, an output over an input (the profile) would destroy it. Files are
 * compared by identity (device and inode; for a file still to be created, its directory's real path
 * and its name), so `./r.json`, `r.json` and a symbolic link to it are one file.
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { RpcloadError } from '../errors.ts';

/** `--out -`: stdout, not a file. */
const STDOUT = '-';
const DEV_NULL = '/dev/null';

/** A file a command reads or writes, and how the user named it (a flag, or e.g. "the profile"). */
export interface NamedFile {
  readonly name: string;
  /** Absent: the command was not given this file. */
  readonly path: string | undefined;
}

/** What kind of thing `stats` is when it is not a regular file or a directory; null when it is one. */
function specialFileKind(stats: Stats): string | null {
  if (stats.isFile() || stats.isDirectory()) return null;
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** True when `stats` is /dev/null's: the one special file an output may be (it never blocks, and takes everything). */
async function isDevNull(stats: Stats): Promise<boolean> {
  if (!stats.isCharacterDevice()) return false;
  const devNull = await stat(DEV_NULL).catch(() => null);
  return devNull !== null && devNull.dev === stats.dev && devNull.ino === stats.ino && devNull.rdev === stats.rdev;
}

/**
 * Why an existing output path cannot be written without risk of blocking (a FIFO, a socket, a
 * device other than /dev/null); null when it is fine (regular, absent, /dev/null, or a directory,
 * which the caller refuses in its own words).
 */
async function unsafeOutputKind(path: string): Promise<string | null> {
  const stats = await stat(path).catch(() => null);
  if (stats === null) return null;
  const kind = specialFileKind(stats);
  return kind === null || (await isDevNull(stats)) ? null : kind;
}

/**
 * Refuse (exit 2, one line) an existing output that is a FIFO, a socket or a device other than
 * /dev/null: opening or writing one can block forever, past every deadline and Ctrl-C.
 */
export async function assertSafeOutput(path: string, flag: string, what: string): Promise<void> {
  const kind = await unsafeOutputKind(path);
  if (kind !== null)
    throw new RpcloadError(
      'bad_flag',
      `${flag} ${path}: cannot write ${what} there (${kind}, not a regular file: writing to it can block; give a file or /dev/null)`,
    );
}

/** A file's identity: device and inode when it exists, else its directory's real path and its name. */
async function identityOf(path: string): Promise<string> {
  const absolute = resolve(path);
  const stats = await stat(absolute).catch(() => null);
  if (stats !== null) return `${stats.dev}:${stats.ino}`;
  const dir = await realpath(dirname(absolute)).catch(() => dirname(absolute));
  return join(dir, basename(absolute));
}

/**
 * Refuse (exit 2) a command whose outputs are one file, or whose output is one of its inputs, with
 * one line naming both. `-` (stdout) and /dev/null are no files here: any number may share them.
 */
export async function assertDistinctFiles(
  outputs: readonly NamedFile[],
  inputs: readonly NamedFile[] = [],
): Promise<void> {
  const devNull = await identityOf(DEV_NULL);
  const named = async (files: readonly NamedFile[]): Promise<{ file: NamedFile & { path: string }; id: string }[]> => {
    const given = files.filter(
      (file): file is NamedFile & { path: string } => file.path !== undefined && file.path !== STDOUT,
    );
    const ids = await Promise.all(given.map((file) => identityOf(file.path)));
    return given.map((file, i) => ({ file, id: ids[i]! })).filter(({ id }) => id !== devNull);
  };
  const [written, read] = await Promise.all([named(outputs), named(inputs)]);
  for (const [i, output] of written.entries()) {
    const input = read.find(({ id }) => id === output.id);
    if (input !== undefined)
      throw new RpcloadError(
        'bad_flag',
        `${output.file.name} ${output.file.path}: the same file as ${input.file.name} (${input.file.path}), which is read: writing it would destroy it`,
      );
    const other = written.slice(0, i).find(({ id }) => id === output.id);
    if (other !== undefined)
      throw new RpcloadError(
        'bad_flag',
        `${output.file.name} ${output.file.path}: the same file as ${other.file.name} (${other.file.path}); each output needs a file of its own`,
      );
  }
}

/**
 * Write `text` to `path` atomically: into a temporary file in the same directory, flushed to
 * disk, then renamed over the target — a reader, or a crash or a full disk mid-write, sees the old
 * file or the new one, never half of one. /dev/null (or another existing file that is not a
 * regular one) is written in place: renaming over it would replace the device with a plain file.
 * Rejects with the file system's error; no temporary file is left behind.
 */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const stats = await stat(path).catch(() => null);
  if (stats !== null && !stats.isFile() && !stats.isDirectory()) {
    await writeFile(path, text, 'utf8');
    return;
  }
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
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
    throw err;
  }
}
