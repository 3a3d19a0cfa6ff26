/**
 * One frame of the verify dashboard: a header (target, elapsed, counts by state with a bar of
 * finished checks, result file), the checks table (each check's state, time and one-line reason
 * as it lands) and a log of state changes. Pure: (model, size) → lines.
 */
import type { Size } from '../dashboard/layout.ts';
import { Canvas, contentRect } from '../text/canvas.ts';
import { cellText } from '../text/cell-text.ts';
import { formatSeconds, progressBar } from '../text/format.ts';
import { drawOverlay } from '../text/overlay.ts';
import { fitLine, seg, spread, wrapLine, type StyledLine } from '../text/styled.ts';
import type { VerifyHeader } from '../../contract/live-view.ts';
import { countStates, type CheckBoard } from './check-board.ts';
import { checkRowLine, progressLine, STATE_MARK } from './check-lines.ts';

export interface VerifyFrameModel {
  readonly header: VerifyHeader;
  readonly board: CheckBoard;
  /** Since the view started (about when the verify run started). */
  readonly elapsedMs: number;
  readonly stopping: boolean;
  readonly notices: readonly string[];
  readonly help: boolean;
}

const HEADER_ROWS = 3;
const LOG_MIN_ROWS = 3;

function headerLines(model: VerifyFrameModel, width: number): StyledLine[] {
  const counts = countStates(model.board);
  const total = model.board.rows.length;
  const done = counts.pass + counts.fail + counts.skip;
  const line1 = spread(
    [seg('rpcload verify', 'strong'), seg(' · '), seg(cellText(model.header.target, 120), 'accent')],
    [seg(`elapsed ${formatSeconds(model.elapsedMs)}`)],
    width,
  );
  const tally: StyledLine = (['pass', 'fail', 'skip', 'running', 'waiting'] as const).flatMap((state) => [
    seg(`${STATE_MARK[state].symbol} ${counts[state]} ${state}`, counts[state] > 0 ? STATE_MARK[state].style : 'dim'),
    seg('  '),
  ]);
  const tallyWidth = tally.reduce((n, s) => n + s.text.length, 0);
  const bar = seg(
    progressBar(total > 0 ? done / total : 0, Math.max(0, Math.min(30, width - tallyWidth - 8))),
    'accent',
  );
  const line2 = fitLine([...tally, bar, seg(` ${done}/${total}`, 'dim')], width);
  const right: StyledLine = model.stopping ? [seg(' STOPPING… ', 'inverse')] : [seg('? help  q stop', 'dim')];
  const line3 = spread([seg('result ', 'dim'), seg(cellText(model.header.resultPath, 200))], right, width);
  return [line1, line2, line3];
}

const HELP: readonly StyledLine[] = [
  [seg('q, Ctrl-C   ', 'accent'), seg('stop: unfinished checks end as skip (interrupted);')],
  [seg('            '), seg('the result file is still written (exit 130)')],
  [seg('Ctrl-C ×2   ', 'accent'), seg('quit at once')],
  [seg('?, Esc      ', 'accent'), seg('close this help')],
  [],
  [seg('states      ', 'accent'), seg('· wait, ▸ running, ✓ pass, ✗ fail, – skip (with why)')],
  [seg('time        ', 'accent'), seg('how long a check has run, or took')],
];

export function renderVerifyFrame(model: VerifyFrameModel, size: Size): StyledLine[] {
  const canvas = new Canvas(size.width, size.height);
  canvas.writeLines(
    { x: 0, y: 0, width: size.width, height: Math.min(HEADER_ROWS, size.height) },
    headerLines(model, size.width),
  );
  const left = size.height - HEADER_ROWS;
  const rows = model.board.rows;
  // The checks table comes first and gets what it needs; the log takes the rest, if that is enough.
  const checksHeight = Math.max(0, Math.min(rows.length + 2, left));
  if (checksHeight >= 3) {
    const rect = { x: 0, y: HEADER_ROWS, width: size.width, height: checksHeight };
    const content = contentRect(rect);
    const idWidth = Math.min(30, Math.max(8, ...rows.map((r) => r.id.length)), Math.floor(content.width / 2));
    let lines = rows.map((row) => checkRowLine(row, model.elapsedMs, idWidth));
    if (lines.length > content.height)
      lines = [...lines.slice(0, content.height - 1), [seg(`+${lines.length - content.height + 1} more`, 'dim')]];
    canvas.box(rect, [seg('checks')]);
    canvas.writeLines(content, lines);
  }
  const logHeight = left - checksHeight;
  if (logHeight >= LOG_MIN_ROWS) {
    const rect = { x: 0, y: HEADER_ROWS + checksHeight, width: size.width, height: logHeight };
    const content = contentRect(rect);
    const notices: StyledLine[] = model.notices.map((n) => [seg(cellText(n, 300), 'warn')]);
    // Wrapped, so a failing check's whole reason can be read here even when the table cuts it.
    const lines = [...model.board.log.map(progressLine), ...notices]
      .flatMap((line) => wrapLine(line, content.width, 9))
      .slice(-content.height);
    canvas.box(rect, [seg('log'), seg(' · state changes, latest last', 'dim')]);
    canvas.writeLines(content, lines.length > 0 ? lines : [[seg('waiting for the first check to start…', 'dim')]]);
  }
  if (model.help) drawOverlay(canvas, 'rpcload verify · help', HELP, 12);
  return canvas.lines();
}
