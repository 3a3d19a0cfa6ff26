/**
 * The log pane: notices the process printed while the dashboard had the terminal (e.g.
 * "stopping…"), then the last distinct errors, most recently seen first, each with its count and
 * how long ago it was last seen (before the detail, the part that may be cut). Token-request
 * failures are marked as such.
 */
import { cellText } from '../text/cell-text.ts';
import { formatCount, formatSeconds } from '../text/format.ts';
import { seg, type StyledLine } from '../text/styled.ts';
import type { RunFrameModel } from './run-model.ts';

export function logTitle(model: RunFrameModel): StyledLine {
  const distinct = model.snapshot.recentErrors.length;
  return [seg('errors'), seg(distinct > 0 ? ` · ${distinct} distinct` : '', 'dim')];
}

/** Below this width an error takes two lines. */
export const TWO_LINES_BELOW = 50;

export function logLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const { snapshot } = model;
  const lines: StyledLine[] = model.notices
    .slice(-2)
    .reverse()
    .map((notice) => [seg(cellText(notice, 300), 'warn')]);
  // Two lines per error (what, then when and why) whenever they all fit, and always in narrow
  // panes, so the detail is not the part that is always cut; one line each when rows are short.
  const twoLines = width < TWO_LINES_BELOW || lines.length + 2 * snapshot.recentErrors.length <= height;
  for (const error of snapshot.recentErrors) {
    if (lines.length >= height) break;
    const count = seg(`${formatCount(error.count)}×`.padStart(5), 'strong');
    const what = [seg(error.source === 'token' ? ' token' : '', 'dim'), seg(` ${cellText(error.outcome, 100)}`, 'bad')];
    const age = seg(`${formatSeconds(snapshot.elapsedMs - error.lastAtMs)} ago`, 'dim');
    const detail = seg(error.detail === '' ? '' : `  ${cellText(error.detail)}`);
    if (twoLines) lines.push([count, ...what], [seg(' '.repeat(6)), age, detail]);
    else lines.push([count, ...what, seg(' '), age, detail]);
  }
  if (lines.length === 0) lines.push([seg('no errors so far', 'dim')]);
  return lines.slice(0, Math.max(0, height));
}
