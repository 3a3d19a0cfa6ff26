import { createPlainProgress } from './plain-progress.ts';
import type { UiMode } from './ui-mode.ts';
import type { LiveView, ViewSource } from './view.ts';

/**
 * The live view for a resolved UI mode. Progress goes to stderr so stdout stays clean for the
 * summary or --json. (`tui` falls back to plain lines until the dashboard exists.)
 */
export interface RunViewOptions {
  /** The user asked to stop (`q` or Ctrl-C inside a raw-mode dashboard, where no SIGINT arrives). */
  readonly onQuit: () => void;
}

export function createRunView(mode: Exclude<UiMode, 'auto'>, source: ViewSource, _options: RunViewOptions): LiveView {
  if (mode === 'none') return { start: () => undefined, stop: () => undefined };
  return createPlainProgress(source, { write: (line) => process.stderr.write(`${line}\n`) });
}
