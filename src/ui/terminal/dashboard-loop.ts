/**
 * The frame loop shared by the run and verify dashboards: own timer (unref'd, so it never keeps
 * the process alive), one pure frame per tick, keys, resizes, and the guarantees around them —
 * the terminal is restored on stop, on exit and on a crash; stderr is held while the screen is
 * ours; a failing frame tears the dashboard down instead of the run.
 */
import { describeError, ExitCode } from '../../errors.ts';
import type { Size } from '../dashboard/layout.ts';
import type { StyledLine } from '../text/styled.ts';
import { openFrameScreen, type FrameScreen, type ScreenKey } from './frame-screen.ts';
import { captureStderr, type StderrCapture } from './stderr-capture.ts';

export interface DashboardState {
  readonly help: boolean;
  readonly stopping: boolean;
  /** Lines written to stderr while the dashboard is up, oldest first. */
  readonly notices: readonly string[];
}

export interface DashboardLoopOptions {
  /** The whole screen at this size and state; may pull fresh data (it runs on the loop's timer). */
  readonly frame: (size: Size, state: DashboardState) => readonly StyledLine[];
  /** First `q` or Ctrl-C: stop gracefully. */
  readonly onQuit: () => void;
  /** A second Ctrl-C: quit at once. Default: restore the terminal and exit 130. */
  readonly onForceQuit?: () => void;
  readonly intervalMs?: number;
  readonly colour: boolean;
  readonly input?: NodeJS.ReadStream;
  readonly output?: NodeJS.WriteStream;
}

/** What a dashboard view takes: the loop's options, the frame being the view's own. */
export type DashboardOptions = Omit<DashboardLoopOptions, 'frame'>;

export interface DashboardLoop {
  /** Draw now (e.g. after new data was pushed). */
  redraw(): void;
  /** Stop drawing and restore the terminal. Idempotent. */
  stop(): void;
}

/** About four frames a second: fresh enough to watch, cheap enough not to matter to the driver. */
export const FRAME_INTERVAL_MS = 250;

export function startDashboardLoop(options: DashboardLoopOptions): DashboardLoop {
  let help = false;
  let stopping = false;
  let stopped = false;
  let capture: StderrCapture | null = null;
  let screen: FrameScreen | null = null;
  let timer: NodeJS.Timeout | null = null;
  const output = options.output ?? process.stdout;

  const teardown = (): void => {
    stopped = true;
    if (timer !== null) clearInterval(timer);
    timer = null;
    screen?.destroy();
    // Held stderr goes out only once the normal screen is back.
    capture?.release();
  };
  const guard: TerminalGuard = guardTerminal(teardown);

  /** Draw a frame: changed cells only, or (`full`) every cell after clearing the terminal. */
  const draw = (full = false): void => {
    if (stopped || screen === null) return;
    try {
      const lines = options.frame(screen.size(), { help, stopping, notices: capture?.lines() ?? [] });
      if (full) screen.repaint(lines);
      else screen.draw(lines);
    } catch (err) {
      // A view must never break the run: give the terminal back and let the run go on.
      guard.restore();
      process.stderr.write(`rpcload: the dashboard stopped (${describeError(err)}); the run goes on without it\n`);
    }
  };
  const forceQuit =
    options.onForceQuit ??
    ((): void => {
      guard.restore();
      process.exit(ExitCode.interrupted);
    });
  const onKey = (key: ScreenKey): void => {
    if (key === 'interrupt' && stopping) return forceQuit();
    if (key === 'quit' || key === 'interrupt') {
      if (stopping) return;
      stopping = true;
      options.onQuit();
    } else if (key === 'help') help = !help;
    else if (key === 'escape') help = false;
    draw(key === 'redraw');
  };

  try {
    // Only a terminal needs protecting: stderr redirected to a file cannot garble the screen.
    if (process.stderr.isTTY === true && output !== process.stderr) capture = captureStderr(process.stderr);
    // After a resize the terminal has reflowed the old frame: repaint every cell.
    screen = openFrameScreen({
      input: options.input ?? process.stdin,
      output,
      colour: options.colour,
      onKey,
      onResize: () => draw(true),
    });
  } catch (err) {
    guard.restore();
    throw err;
  }
  timer = setInterval(() => draw(), options.intervalMs ?? FRAME_INTERVAL_MS);
  timer.unref();
  draw();
  return { redraw: () => draw(), stop: () => guard.restore() };
}

/** Restores the terminal once, whatever happens. */
export interface TerminalGuard {
  /** Restore now (idempotent) and stop watching the process. */
  restore(): void;
}

/**
 * Whatever happens, the terminal is given back: `restore` runs exactly once — when the view stops,
 * when the process exits (process.exit() from anywhere, e.g. a second Ctrl-C), or on an uncaught
 * exception. The exception hook is `uncaughtExceptionMonitor`, which runs before Node prints the
 * error and exits, without changing that behaviour (an 'uncaughtException' listener would swallow
 * the crash). Restore must be synchronous: on 'exit' nothing asynchronous runs any more.
 */
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
