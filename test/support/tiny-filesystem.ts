/**
 * A real full disk for tests: a small tmpfs mounted in a private user and mount namespace
 * (`unshare -rm`, no root needed where unprivileged user namespaces are allowed), visible only to
 * the script run inside it. The script fills it mid-run to make a write fail with ENOSPC, exactly
 * as a full disk does.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { CliResult } from './cli.ts';

/**
 * Why such a test cannot run here (null when it can): it skips with this line. Under CI=true a
 * missing namespace is a failure, not a skip (null is returned; the test then fails on its own).
 */
export function tinyFilesystemMissing(): string | null {
  if (process.env.CI === 'true') return null;
  const probe = spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs /mnt'], {
    encoding: 'utf8',
  });
  if (probe.status === 0) return null;
  return `a full disk cannot be made here: \`unshare -rm\` (util-linux, user namespaces) cannot mount a private tmpfs (${(probe.stderr || probe.error?.message || 'failed').trim()})`;
}

/**
 * Run `script` (sh) in a private mount namespace where a tmpfs of `sizeKb` KiB is mounted at
 * `mountPoint` (an existing, empty directory); `$MNT` holds its path. Killed after `timeoutMs`.
 */
export function runWithTinyFilesystem(
  mountPoint: string,
  sizeKb: number,
  script: string,
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-rm', 'sh', '-c', `mount -t tmpfs -o size=${sizeKb}k tmpfs "$MNT" && ${script}`], {
      env: { ...process.env, NO_COLOR: '1', CI: 'true', ...env, MNT: mountPoint },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
