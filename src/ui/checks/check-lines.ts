/**
 * Lines about checks, shared by the verify dashboard and the plain view: how each state looks, a
 * row of the checks table, and a log line per state change (`[  3.2s] ratelimit.threshold  ✓ PASS
 * reason`); and the plain view itself, which prints those log lines.
 */
import { cellText, padEnd, padStart } from '../text/cell-text.ts';
import { formatSeconds } from '../text/format.ts';
import { lineText, seg, type Style, type StyledLine } from '../text/styled.ts';
import type { CheckProgress, CheckState, VerifyHeader, VerifyView } from '../../contract/live-view.ts';
import { applyProgress, checkDurationMs, emptyBoard, type CheckRow } from './check-board.ts';

/**
 * How each check state looks: a symbol and a word, so a state reads the same without colour
 * (NO_COLOR, CI logs), plus the style the dashboard colours it with. Running checks get a
 * braille spinner that advances with the clock.
 */
export const STATE_MARK: Readonly<
  Record<CheckState, { readonly symbol: string; readonly word: string; readonly style: Style }>
> = {
  waiting: { symbol: '·', word: 'wait', style: 'dim' },
  running: { symbol: '▸', word: 'RUN', style: 'accent' },
  pass: { symbol: '✓', word: 'PASS', style: 'ok' },
  fail: { symbol: '✗', word: 'FAIL', style: 'bad' },
  skip: { symbol: '–', word: 'SKIP', style: 'warn' },
};

const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';

/** The mark of a state, 6 cells wide: `✓ PASS`; a running one spins with `nowMs`. */
export function stateMark(state: CheckState, nowMs: number): string {
  const { symbol, word } = STATE_MARK[state];
  const shown = state === 'running' ? SPINNER[Math.floor(nowMs / 250) % SPINNER.length]! : symbol;
  return `${shown} ${word}`.padEnd(6);
}

const TIME = 7;

/** `✓ PASS  envelope          0.4s  reason…`; `idWidth` aligns the ids. */
export function checkRowLine(row: CheckRow, nowMs: number, idWidth: number): StyledLine {
  const duration = checkDurationMs(row, nowMs);
  const { style } = STATE_MARK[row.state];
  return [
    seg(stateMark(row.state, nowMs), style),
    seg(` ${padEnd(cellText(row.id, 60), idWidth)}`, row.state === 'waiting' ? 'dim' : null),
    seg(padStart(duration === null ? '' : formatSeconds(duration), TIME), 'dim'),
    seg(row.detail === '' ? '' : `  ${cellText(row.detail, 300)}`, row.state === 'fail' ? 'bad' : null),
  ];
}

/** One state change as a log line. */
export function progressLine(record: CheckProgress): StyledLine {
  const { symbol, word, style } = STATE_MARK[record.state];
  return [
    seg(`[${(record.atMs / 1000).toFixed(1).padStart(5)}s] `, 'dim'),
    seg(cellText(record.id, 60)),
    seg(` ${symbol} ${word}`, style),
    seg(record.detail === '' ? '' : `  ${cellText(record.detail, 300)}`),
  ];
}

export interface PlainChecksOptions {
  readonly write: (line: string) => void;
}

/**
 * The verify view's plain twin for CI logs and pipes: one line per state change, nothing for a
 * repeated state (a new detail while running) or the initial `waiting`. No control characters:
 * server text is sanitized, and the marks are symbols plus words.
 */
export function createPlainChecks(header: VerifyHeader, options: PlainChecksOptions): VerifyView {
  let board = emptyBoard(header.checkIds);
  return {
    start: () => undefined,
    stop: () => undefined,
    onProgress: (record: CheckProgress) => {
      const next = applyProgress(board, record);
      board = next.board;
      if (next.changed) options.write(lineText(progressLine(record)));
    },
  };
}
