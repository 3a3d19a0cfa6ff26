/**
 * Commands report their outcome through this instead of calling process.exit, so that pending
 * output is flushed first (process.exit can truncate stdout on a pipe).
 */
import type { ExitCode } from '../errors.ts';

let requestedExitCode: ExitCode = 0;

export function setExitCode(code: ExitCode): void {
  // A more severe outcome wins: interrupted (130) > bad input (2) > failed (1) > ok (0).
  const rank = (c: ExitCode): number => ({ 0: 0, 1: 1, 2: 2, 130: 3 })[c];
  if (rank(code) > rank(requestedExitCode)) requestedExitCode = code;
}

export function getExitCode(): ExitCode {
  return requestedExitCode;
}

/** Exit once stdout and stderr have drained. */
export function exitAfterFlush(code: number): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}
