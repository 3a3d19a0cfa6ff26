/**
 * How a fault or heal hook ran, as a plain record for the hook checks' verdicts, and whether it can
 * be trusted to have done its job.
 */

/** How one hook ran, as evidence: times in ms since the check started. */
export interface HookRun {
  readonly hook: 'fault' | 'heal';
  readonly command: string;
  readonly startedMs: number;
  readonly durationMs: number;
  /** The exit code; null when killed (by its deadline, or a signal) or when it could not start. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** Why it could not start (e.g. no shell); absent when it started. */
  readonly startError?: string;
  /** Its last lines of output, sanitized. */
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
}

/** Why a hook run cannot be trusted to have done its job, or null when it exited 0 in time. */
export function hookProblem(run: HookRun, timeoutMs: number): string | null {
  const said = run.stderr.at(-1) ?? run.stdout.at(-1);
  const tail = said === undefined ? '' : `: ${said}`;
  if (run.startError !== undefined) return `the ${run.hook} hook could not start: ${run.startError}`;
  if (run.timedOut)
    return `the ${run.hook} hook did not finish within its ${timeoutMs / 1000} s deadline (--hook-timeout)${tail}`;
  if (run.exitCode === null) return `the ${run.hook} hook was killed by ${run.signal ?? 'a signal'}${tail}`;
  if (run.exitCode !== 0) return `the ${run.hook} hook exited with code ${run.exitCode}${tail}`;
  return null;
}
