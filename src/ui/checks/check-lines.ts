/**
 * Lines about checks, shared by the verify dashboard and the plain view: a row of the checks
 * table, and a log line per state change (`[  3.2s] ratelimit.threshold  ✓ PASS  reason`).
 */
import { cellText, padEnd, padStart } from '../text/cell-text.ts';
import { formatSeconds } from '../text/format.ts';
import { seg, type StyledLine } from '../text/styled.ts';
import type { CheckProgress } from '../../contract/live-view.ts';
import { checkDurationMs, type CheckRow } from './check-board.ts';
import { STATE_MARK, stateMark } from './check-marks.ts';

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
