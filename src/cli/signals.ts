/**
 * Ctrl-C / SIGTERM for long-running commands: the first signal asks the command to stop
 * gracefully (it still writes its result file, within about 2 s); a second one quits at once with
 * exit 130. A watchdog makes sure the process ends even when something hangs after the first.
 */
import { ExitCode } from '../errors.ts';

/** After the first signal, the process exits (130) after this long whatever is still running. */
export const STOP_WATCHDOG_MS = 4000;

/**
 * Until a command handles the signals itself (withInterrupt, `serve`), a signal exits 130 at
 * once: nothing has started that needs a result file. Replaces the launcher's own early handlers
 * (bin/rpcload.js).
 */
export function exitOnSignalUntilCommand(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(ExitCode.interrupted);
    });
  }
}

/**
 * Run `command` with an abort signal that the first SIGINT/SIGTERM (or the command's own `stop`,
 * e.g. `q` in the dashboard) aborts; the handlers are removed when it settles.
 */
export async function withInterrupt<T>(command: (signal: AbortSignal, stop: () => void) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const stop = (): void => {
    if (abort.signal.aborted) return;
    process.stderr.write('rpcload: stopping — in-flight requests get a moment to finish; press Ctrl-C again to quit at once\n');
    abort.abort();
  };
  let interrupted = false;
  const handler = (): void => {
    if (interrupted) process.exit(ExitCode.interrupted);
    interrupted = true;
    stop();
    const watchdog = setTimeout(() => {
      process.stderr.write(`rpcload: still not stopped after ${STOP_WATCHDOG_MS / 1000} s; quitting (the result file may be incomplete)\n`);
      process.exit(ExitCode.interrupted);
    }, STOP_WATCHDOG_MS);
    watchdog.unref();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    return await command(abort.signal, stop);
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    // The watchdog stays armed (unref'd): printing the summary and exiting are part of the stop too.
  }
}

/**
 * For `serve`, which has no result file to finish: a signal aborted by the first SIGINT or SIGTERM
 * (after `onSignal` is told its name). Its handlers are removed then, so a second signal exits
 * 130 at once through exitOnSignalUntilCommand's handler.
 */
export function abortOnFirstSignal(onSignal: (name: NodeJS.Signals) => void): AbortSignal {
  const abort = new AbortController();
  const handler = (name: NodeJS.Signals): void => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
    onSignal(name);
    abort.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return abort.signal;
}
