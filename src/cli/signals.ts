/**
 * Interrupts for every command: Ctrl-C (SIGINT), SIGTERM, and SIGHUP (the terminal was closed, the
 * SSH session dropped) all mean "stop". For a long-running command the first one asks it to stop
 * gracefully (it still writes its result file, within about 2 s); a second one quits at once with
 * exit 130. A watchdog makes sure the process ends even when something hangs after the first.
 *
 * One dispatcher per signal is installed as the CLI loads and stays for the life of the process;
 * commands register what a signal means to them (withInterrupt, `serve`), and without a registered
 * handler a signal exits 130 at once: nothing has started that needs a result file. The dispatcher
 * is never removed because removing a signal's last listener stops Node's watcher for it, and a
 * signal the OS had already delivered while the event loop was busy (evaluating the CLI's modules)
 * is dropped with that watcher: the run then went on as if it had never been interrupted.
 */
import { ExitCode } from '../errors.ts';

/** After the first signal, the process exits (130) after this long whatever is still running. */
export const STOP_WATCHDOG_MS = 4000;

/** The signals that stop a command. */
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

type InterruptHandler = (signal: NodeJS.Signals) => void;

/** Registered handlers, the latest (innermost) last: a signal goes to the latest only. */
const handlers: InterruptHandler[] = [];

function ignore(): void {
  // A write to a terminal that has gone away (EIO) or a closed pipe (EPIPE): nobody is reading.
}

function dispatch(signal: NodeJS.Signals): void {
  // The terminal is gone: what is still written to it on the way out fails, and must not crash the
  // stop before the result file is written.
  if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', ignore);
  const handler = handlers.at(-1);
  if (handler === undefined) process.exit(ExitCode.interrupted);
  handler(signal);
}

function listen(): void {
  for (const signal of INTERRUPT_SIGNALS)
    if (!process.listeners(signal).includes(dispatch)) process.on(signal, dispatch);
}

/**
 * Take the signals over from the launcher's early handlers (bin/rpcload.js). The dispatcher is
 * added before they are removed, so a signal is watched without a gap.
 */
export function installSignalHandlers(): void {
  listen();
  for (const signal of INTERRUPT_SIGNALS)
    for (const listener of process.listeners(signal)) if (listener !== dispatch) process.off(signal, listener);
}

/** Route the signals to `handler` until the returned function is called. */
export function onInterrupt(handler: InterruptHandler): () => void {
  listen();
  handlers.push(handler);
  return () => {
    const index = handlers.lastIndexOf(handler);
    if (index >= 0) handlers.splice(index, 1);
  };
}

/**
 * Run `command` with an abort signal that the first SIGINT/SIGTERM/SIGHUP (or the command's own
 * `stop`, e.g. `q` in the dashboard) aborts; the handler is removed when it settles.
 */
export async function withInterrupt<T>(command: (signal: AbortSignal, stop: () => void) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const stop = (): void => {
    if (abort.signal.aborted) return;
    process.stderr.write(
      'rpcload: stopping — in-flight requests get a moment to finish; press Ctrl-C again to quit at once\n',
    );
    abort.abort();
  };
  let interrupted = false;
  const release = onInterrupt(() => {
    if (interrupted) process.exit(ExitCode.interrupted);
    interrupted = true;
    stop();
    const watchdog = setTimeout(() => {
      process.stderr.write(
        `rpcload: still not stopped after ${STOP_WATCHDOG_MS / 1000} s; quitting (the result file may be incomplete)\n`,
      );
      process.exit(ExitCode.interrupted);
    }, STOP_WATCHDOG_MS);
    watchdog.unref();
  });
  try {
    return await command(abort.signal, stop);
  } finally {
    release();
    // The watchdog stays armed (unref'd): printing the summary and exiting are part of the stop too.
  }
}

/**
 * For `serve`, which has no result file to finish: a signal aborted by the first SIGINT, SIGTERM or
 * SIGHUP (after `onSignal` is told its name). Its handler is released then, so a second signal
 * exits 130 at once through the dispatcher.
 */
export function abortOnFirstSignal(onSignal: (name: NodeJS.Signals) => void): AbortSignal {
  const abort = new AbortController();
  const release = onInterrupt((name) => {
    release();
    onSignal(name);
    abort.abort();
  });
  return abort.signal;
}
