/**
 * The live view for a resolved UI mode. `tui` is the blessed dashboard on stdout — when stdout is
 * a terminal that can draw; otherwise (forced `--ui tui` into a pipe, TERM=dumb) it falls back to
 * plain lines, since escape sequences there help nobody. Plain progress goes to stderr so stdout
 * stays clean for the summary or --json.
 */
import { createPlainChecks } from './checks/check-lines.ts';
import { createPlainProgress } from './plain-progress.ts';
import { createRunDashboard } from './run-dashboard.ts';
import { colourAllowed } from '../util/terminal-style.ts';
import type { UiMode } from './ui-mode.ts';
import { createVerifyDashboard } from './verify-dashboard.ts';
import type { LiveView, VerifyHeader, VerifyView, ViewSource } from '../contract/live-view.ts';

export interface RunViewOptions {
  /** The user asked to stop (`q` or Ctrl-C inside a raw-mode dashboard, where no SIGINT arrives). */
  readonly onQuit: () => void;
}

const writeLine = (line: string): void => void process.stderr.write(`${line}\n`);

/** The dashboard needs a terminal on stdout that can move its cursor (TERM=dumb cannot). */
export function dashboardPossible(
  stdout: { readonly isTTY?: boolean },
  env: { readonly TERM?: string | undefined },
): boolean {
  return stdout.isTTY === true && env.TERM !== 'dumb';
}

/** The live view of `rpcload run`. */
export function createRunView(mode: Exclude<UiMode, 'auto'>, source: ViewSource, options: RunViewOptions): LiveView {
  if (mode === 'none') return { start: () => undefined, stop: () => undefined };
  if (mode === 'tui' && dashboardPossible(process.stdout, process.env))
    return createRunDashboard(source, { onQuit: options.onQuit, colour: colourAllowed(process.env) });
  return createPlainProgress(source, { write: writeLine });
}

/** The verify view: the checks dashboard, one line per state change, or nothing. */
export function createVerifyView(
  mode: Exclude<UiMode, 'auto'>,
  header: VerifyHeader,
  options: RunViewOptions,
): VerifyView {
  if (mode === 'none') return { start: () => undefined, stop: () => undefined, onProgress: () => undefined };
  if (mode === 'tui' && dashboardPossible(process.stdout, process.env))
    return createVerifyDashboard(header, { onQuit: options.onQuit, colour: colourAllowed(process.env) });
  return createPlainChecks(header, { write: writeLine });
}
