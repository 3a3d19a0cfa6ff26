/**
 * The one error class for user and configuration mistakes (bad profile, bad flag, unreadable
 * result file, unreachable target). It carries a stable `code` and the process exit code; the CLI
 * prints `message` as one line, never a stack trace. Failed requests are data, never this class.
 */
export const ExitCode = {
  ok: 0,
  /** A threshold, check or comparison failed. */
  failed: 1,
  /** Bad input or configuration, target unreachable at start. */
  badInput: 2,
  /** Interrupted by Ctrl-C / SIGTERM / `q`; the result file is still written. */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class RpcloadError extends Error {
  override readonly name = 'RpcloadError';
  constructor(
    /** Stable machine-readable code, e.g. `bad_profile`, `bad_flag`, `unreachable`. */
    readonly code: string,
    message: string,
    readonly exitCode: ExitCode = ExitCode.badInput,
  ) {
    super(message);
  }
}

/** Narrow an unknown thrown value to a one-line message without leaking a stack. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
