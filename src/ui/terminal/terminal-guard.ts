/**
 * Whatever happens, the terminal is given back: `restore` runs exactly once — when the view stops,
 * when the process exits (process.exit() from anywhere, e.g. a second Ctrl-C), or on an uncaught
 * exception. The exception hook is `uncaughtExceptionMonitor`, which runs before Node prints the
 * error and exits, without changing that behaviour (an 'uncaughtException' listener would swallow
 * the crash). Restore must be synchronous: on 'exit' nothing asynchronous runs any more.
 */
export interface TerminalGuard {
  /** Restore now (idempotent) and stop watching the process. */
  restore(): void;
}

export function guardTerminal(restore: () => void): TerminalGuard {
  let restored = false;
  const run = (): void => {
    if (restored) return;
    restored = true;
    process.off('exit', run);
    process.off('uncaughtExceptionMonitor', run);
    restore();
  };
  process.on('exit', run);
  process.on('uncaughtExceptionMonitor', run);
  return { restore: run };
}
