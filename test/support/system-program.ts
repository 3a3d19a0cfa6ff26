/**
 * The system programs some tests drive (prometheus, tmux, nginx, redis-server, Debian's chromium,
 * wrk): found on the PATH, or absent. Absent, the tests that need one are skipped with a one-line
 * reason naming the Debian package — except under CI=true, where `.ci/run` installs them all, so an
 * absent one fails the test file at once instead of quietly skipping its proof.
 *
 *   const tmux = requireProgram('tmux', { package: 'tmux' });
 *   describe.skipIf(tmux.path === null)(`the dashboard${tmux.skipNote}`, () => { … });
 *
 * Only the PATH counts (no well-known absolute paths), so `.ci/run` can hide a program from the
 * tests by leaving it out of the PATH and prove that the skip paths work.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface ProgramNeed {
  /** The Debian package that installs the program (named in the skip reason). */
  readonly package: string;
  /** What the tests do without it, for the line printed then (default: they are skipped). */
  readonly withoutIt?: string;
}

export interface SystemProgram {
  readonly name: string;
  /** Where the program is on the PATH; null when it is not there (the tests that need it skip). */
  readonly path: string | null;
  /** `''` when present, else ` — skipped: <reason>`, to append to a test or describe title. */
  readonly skipNote: string;
}

/** Where Debian installs daemons (nginx): not on a normal user's PATH, worth naming when the program is there. */
const SBIN_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** Whether CI=true (or 1): then every program the tests need must be installed. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CI === 'true' || env.CI === '1';
}

/** The program's path as the shell finds it on `env.PATH`, or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const found = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', name], { encoding: 'utf8', env });
  const path = found.status === 0 ? found.stdout.trim() : '';
  // `command -v` also answers for shell builtins and functions: only a path is a program.
  return path.startsWith('/') ? path : null;
}

/** One line saying why the program is not usable, naming its Debian package. */
export function absenceReason(name: string, need: ProgramNeed): string {
  const offPath = SBIN_DIRS.map((dir) => join(dir, name)).find((path) => existsSync(path));
  const where =
    offPath === undefined
      ? 'is not on PATH'
      : `is not on PATH (${offPath} is: add ${offPath.slice(0, -name.length - 1)} to PATH)`;
  return `${name} ${where}; install the Debian package with \`apt-get install ${need.package}\``;
}

/**
 * Look up a program the tests drive. Present: its path. Absent: `path` null and a skip note, and
 * the reason printed once on stderr, so `npm test` says what it skipped. Absent under CI=true:
 * throws, which fails the test file that asked.
 */
export function requireProgram(name: string, need: ProgramNeed, env: NodeJS.ProcessEnv = process.env): SystemProgram {
  const path = findOnPath(name, env);
  if (path !== null) return { name, path, skipNote: '' };
  const reason = absenceReason(name, need);
  if (underCi(env))
    throw new Error(`CI=true, and ${reason} (.ci/run installs it): the tests that drive ${name} cannot run`);
  console.warn(`${reason}: ${need.withoutIt ?? `the tests that drive ${name} are skipped`}`);
  return { name, path: null, skipNote: ` — skipped: ${reason}` };
}
