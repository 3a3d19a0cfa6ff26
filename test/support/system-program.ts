/**
 * Tests that drive a system program (redis-server, prometheus, nginx, …): present → the test runs;
 * absent → it is skipped with one line saying how to install it, except under CI=true, where a
 * missing program is a failure (CI installs it; a silent skip there would hide a lost proof).
 */
import { spawnSync } from 'node:child_process';

export interface SystemProgram {
  /** Whether the program answered `args` (e.g. --version). */
  readonly present: boolean;
  /** Why tests skip when it is absent (one line, with how to install it). */
  readonly reason: string;
}

/**
 * Look for `command` (run with `versionArgs`). Throws under CI=true when it is absent, so that the
 * test file fails instead of skipping; elsewhere returns `present: false` with the reason to print.
 */
export function requireSystemProgram(command: string, install: string, versionArgs: readonly string[] = ['--version']): SystemProgram {
  const found = spawnSync(command, versionArgs, { stdio: 'ignore' });
  const present = found.error === undefined && found.status === 0;
  const reason = `${command} is not installed: install it to run these tests (${install})`;
  if (!present && process.env.CI === 'true') throw new Error(`${reason}; CI must have it`);
  if (!present) process.stderr.write(`skipped: ${reason}\n`);
  return { present, reason };
}
