/**
 * The only module that touches blessed. blessed does what it is good at — the alternate screen,
 * raw-mode keys, resize events, diffing cells against what the terminal shows and writing only
 * the changes, and putting the terminal back on destroy(). It does not lay anything out: a frame
 * is a whole screen of styled lines computed by the pure renderers, written straight into
 * blessed's cell buffer. (A full-screen box of tagged text costs 2–8 ms a frame in tag parsing
 * and widget rendering; writing cells costs a fraction of that, and the driver shares our thread.)
 * It never sets the terminal's title (blessed could not restore it).
 */
import { createRequire } from 'node:module';
import type BlessedModule from 'blessed';
import type { Size } from '../dashboard/layout.ts';
import type { Style, StyledLine } from '../text/styled.ts';

// Required when a screen opens, not at start-up: every CLI process would otherwise load blessed's
// widgets, and most runs (--ui plain or none, CI, every other command) never open a screen.
const requireBlessed = (): typeof BlessedModule => createRequire(import.meta.url)('blessed') as typeof BlessedModule;

export type ScreenKey = 'quit' | 'interrupt' | 'help' | 'escape' | 'redraw';

export interface FrameScreenOptions {
  readonly input: NodeJS.ReadStream;
  readonly output: NodeJS.WriteStream;
  readonly colour: boolean;
  readonly onKey: (key: ScreenKey) => void;
  readonly onResize: () => void;
}

export interface FrameScreen {
  size(): Size;
  draw(lines: readonly StyledLine[]): void;
  /** Clear the terminal and draw every cell again (after a resize, or something wrote over us). */
  repaint(lines: readonly StyledLine[]): void;
  /** Leave the alternate screen, show the cursor, end raw mode. Idempotent. */
  destroy(): void;
}

// blessed's cell attribute: flags << 18 | foreground << 9 | background; 0x1ff = the default colour.
const DEFAULT_COLOUR = 0x1ff;
const BOLD = 1;
const INVERSE = 8;
const COLOUR_INDEX: Readonly<Record<Style, number>> = {
  ok: 2,
  warn: 3,
  bad: 1,
  dim: 8,
  accent: 6,
  strong: DEFAULT_COLOUR,
  inverse: DEFAULT_COLOUR,
};
const FLAGS: Readonly<Record<Style, number>> = {
  ok: 0,
  warn: 0,
  bad: 0,
  dim: 0,
  accent: 0,
  strong: BOLD,
  inverse: INVERSE,
};

/**
 * The blessed attribute of a style; without colour only bold and inverse remain. `dim` is bright
 * black (grey), which a terminal blessed believes has only 8 colours would get as black — often
 * invisible — so there it stays the default colour. (blessed cannot read the newer terminfo
 * format of e.g. tmux-256color and falls back to an 8-colour xterm.)
 */
export function cellAttribute(style: Style | null, colour: boolean, terminalColours = 256): number {
  if (style === null) return (DEFAULT_COLOUR << 9) | DEFAULT_COLOUR;
  const index = COLOUR_INDEX[style];
  const fg = colour && (index < 8 || terminalColours >= 16) ? index : DEFAULT_COLOUR;
  return (FLAGS[style] << 18) | (fg << 9) | DEFAULT_COLOUR;
}

type Cell = [number, string];
type Row = Cell[] & { dirty?: boolean };
/**
 * The blessed internals this module uses (blessed is pinned to an exact version in package.json for
 * that reason): the screen's cell rows `lines` and `draw(start, end)`, written directly so a frame
 * costs one pass over the cells instead of a widget tree's layout; `program.clear()` for a full
 * repaint; `program.tput.brokenACS` and `.colors` (see below); and the `widget.Screen` statics
 * holding blessed's process-wide signal handlers. A blessed upgrade must re-check all of them.
 */
interface BlessedScreenInternals {
  lines: Row[];
  draw(start: number, end: number): void;
  program: { clear(): void; tput: { brokenACS: boolean; colors: number } };
}

// blessed installs process-wide handlers on its first screen: SIGINT/SIGTERM/SIGQUIT ones that
// exit(0) when they are the only listener, and an 'uncaughtException' one that swallows crashes
// when another listener exists. The CLI owns signals and the terminal guard owns crashes, so
// they are removed (blessed's own 'exit' handler, which also restores the terminal, stays).
const BLESSED_PROCESS_HANDLERS = [
  ['uncaughtException', '_exceptionHandler'],
  ['SIGTERM', '_sigtermHandler'],
  ['SIGINT', '_sigintHandler'],
  ['SIGQUIT', '_sigquitHandler'],
] as const;

function removeBlessedProcessHandlers(): void {
  const statics = (requireBlessed() as unknown as { widget: { Screen: Record<string, unknown> } }).widget.Screen;
  for (const [event, name] of BLESSED_PROCESS_HANDLERS) {
    const handler = statics[name];
    if (typeof handler === 'function') process.removeListener(event, handler as (...args: unknown[]) => void);
  }
}

/** Copy a frame into blessed's cell rows, marking the rows that changed. */
function writeCells(rows: Row[], lines: readonly StyledLine[], colour: boolean, terminalColours: number): void {
  const blank = cellAttribute(null, colour);
  rows.forEach((row, y) => {
    let x = 0;
    let changed = false;
    const set = (attr: number, ch: string): void => {
      const cell = row[x++]!;
      if (cell[0] !== attr || cell[1] !== ch) {
        cell[0] = attr;
        cell[1] = ch;
        changed = true;
      }
    };
    for (const { text, style } of lines[y] ?? []) {
      const attr = cellAttribute(style, colour, terminalColours);
      for (let i = 0; i < text.length && x < row.length; i++) set(attr, text[i]!);
    }
    while (x < row.length) set(blank, ' ');
    if (changed) row.dirty = true;
  });
}

export function openFrameScreen(options: FrameScreenOptions): FrameScreen {
  const screen = requireBlessed().screen({
    input: options.input,
    output: options.output,
    smartCSR: true,
    // Braille and block characters need UTF-8 anyway; every terminal we target has it.
    forceUnicode: true,
    fullUnicode: false,
    warnings: false,
  });
  const internals = screen as unknown as BlessedScreenInternals;
  // Line-drawing characters as UTF-8, not via the alternate character set: blessed's ACS path
  // prints "lqqk" under tmux/screen TERMs, which it does not set up for.
  internals.program.tput.brokenACS = true;
  removeBlessedProcessHandlers();
  screen.key(['q'], () => options.onKey('quit'));
  screen.key(['C-c'], () => options.onKey('interrupt'));
  screen.key(['?'], () => options.onKey('help'));
  screen.key(['escape'], () => options.onKey('escape'));
  screen.key(['C-l'], () => options.onKey('redraw'));
  screen.on('resize', () => options.onResize());
  let destroyed = false;
  const draw = (lines: readonly StyledLine[]): void => {
    if (destroyed) return;
    writeCells(internals.lines, lines, options.colour, internals.program.tput.colors);
    internals.draw(0, internals.lines.length - 1);
  };
  return {
    size: () => ({ width: Number(screen.width), height: Number(screen.height) }),
    draw,
    repaint: (lines) => {
      if (destroyed) return;
      internals.program.clear();
      screen.realloc();
      draw(lines);
    },
    destroy: () => {
      if (destroyed) return;
      destroyed = true;
      screen.destroy();
    },
  };
}
