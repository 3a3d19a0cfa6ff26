/**
 * The bench's system dependencies (nginx, wrk): found on the PATH or in the usual places, and
 * installed with apt when the bench runs as root and they are missing.
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

/** The binary's path: on the PATH, else the first of `candidates` that exists; null when absent. */
export function findBinary(name: string, candidates: readonly string[]): string | null {
  const onPath = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const found = onPath.status === 0 ? onPath.stdout.trim() : '';
  return found !== '' ? found : (candidates.find((path) => existsSync(path)) ?? null);
}

/** Install a Debian package with apt-get when running as root; false when that is not possible or fails. */
export function aptInstall(pkg: string, log: (line: string) => void): boolean {
  if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v apt-get']).status !== 0) return false;
  log(`${pkg} not found: installing it with apt-get (running as root)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): boolean =>
    spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'ignore', env, timeout: 300_000 }).status === 0;
  if (install()) return true;
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env, timeout: 300_000 });
  return install();
}

/** `findBinary`, installing `pkg` first when the binary is missing and `allowInstall` holds. */
export function findOrInstall(
  name: string,
  candidates: readonly string[],
  pkg: string,
  allowInstall: boolean,
  log: (line: string) => void,
): string | null {
  const found = findBinary(name, candidates);
  if (found !== null || !allowInstall || !aptInstall(pkg, log)) return found;
  return findBinary(name, candidates);
}
