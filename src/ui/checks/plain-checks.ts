/**
 * The verify view's plain twin for CI logs and pipes: one line per state change, nothing for a
 * repeated state (a new detail while running) or the initial `waiting`. No control characters:
 * server text is sanitized, and the marks are symbols plus words.
 */
import { lineText } from '../text/styled.ts';
import type { CheckProgress, VerifyHeader, VerifyView } from '../../contract/live-view.ts';
import { applyProgress, emptyBoard } from './check-board.ts';
import { progressLine } from './check-lines.ts';

export interface PlainChecksOptions {
  readonly write: (line: string) => void;
}

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
