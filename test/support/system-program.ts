/**
 * Tests that drive a system program (nginx, redis-server, prometheus …): find it, and when it is
 * absent skip with one line saying what to install — except under CI=true, where the program is
 * installed by .ci/run and its absence is a failure, not a skip.
 */
import { spawnSync } from 'node:child_process';

export interface SystemProgram {
  /** True when the program answered `probeArgs`. */
  readonly available: boolean;
  /** The one-line reason to skip (empty when available). */
  readonly skipReason: string;
}

/**
 * Look `command` up by running it with `probeArgs` (e.g. `-v`). Under CI=true an absent program
 * throws at once, so the suite fails instead of skipping; elsewhere the caller skips with
 * `skipReason` (e.g. `describe.skipIf(!nginx.available)`, and print the reason).
 */
export function systemProgram(command: string, probeArgs: readonly string[], installHint: string): SystemProgram {
  const probe = spawnSync(command, [...probeArgs], { stdio: 'ignore', timeout: 10_000 });
  const available = probe.error === undefined && probe.status === 0;
  const skipReason = available ? '' : `${command} is not installed (${installHint}): skipping the tests that drive it`;
  if (!available && process.env.CI === 'true') throw new Error(`${command} is required under CI=true (${installHint})`);
  if (!available) process.stderr.write(`skip: ${skipReason}\n`);
  return { available, skipReason };
}
