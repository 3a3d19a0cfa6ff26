/**
 * The verify views' state: one row per check (its state, latest detail, when it started running
 * and when it last changed) and a short log of state changes. Pure: applyProgress returns a new
 * board and says whether the state changed (a new detail while running is not a change).
 */
import type { CheckProgress, CheckState } from '../../contract/live-view.ts';

export interface CheckRow {
  readonly id: string;
  readonly state: CheckState;
  readonly detail: string;
  /** When it went to running (ms since the verify run started), null until then. */
  readonly startedAtMs: number | null;
  readonly changedAtMs: number | null;
}

export interface CheckBoard {
  /** In the header's order, then unknown ids in order of arrival. */
  readonly rows: readonly CheckRow[];
  /** State changes, oldest first, at most LOG_LIMIT. */
  readonly log: readonly CheckProgress[];
}

export const LOG_LIMIT = 100;

export function emptyBoard(checkIds: readonly string[]): CheckBoard {
  return {
    rows: checkIds.map((id) => ({ id, state: 'waiting', detail: '', startedAtMs: null, changedAtMs: null })),
    log: [],
  };
}

export function applyProgress(
  board: CheckBoard,
  record: CheckProgress,
): { readonly board: CheckBoard; readonly changed: boolean } {
  const index = board.rows.findIndex((row) => row.id === record.id);
  const before: CheckRow = board.rows[index] ?? {
    id: record.id,
    state: 'waiting',
    detail: '',
    startedAtMs: null,
    changedAtMs: null,
  };
  const changed = before.state !== record.state;
  const row: CheckRow = {
    id: record.id,
    state: record.state,
    detail: record.detail,
    startedAtMs: record.state === 'running' && before.state !== 'running' ? record.atMs : before.startedAtMs,
    changedAtMs: changed ? record.atMs : before.changedAtMs,
  };
  const rows = index < 0 ? [...board.rows, row] : board.rows.map((r, i) => (i === index ? row : r));
  const log = changed ? [...board.log, record].slice(-LOG_LIMIT) : board.log;
  return { board: { rows, log }, changed };
}

export interface StateCounts {
  readonly waiting: number;
  readonly running: number;
  readonly pass: number;
  readonly fail: number;
  readonly skip: number;
}

export function countStates(board: CheckBoard): StateCounts {
  const counts = { waiting: 0, running: 0, pass: 0, fail: 0, skip: 0 };
  for (const row of board.rows) counts[row.state]++;
  return counts;
}

/** How long a check has run (running) or took (finished), when known. */
export function checkDurationMs(row: CheckRow, nowMs: number): number | null {
  if (row.startedAtMs === null) return null;
  if (row.state === 'running') return Math.max(0, nowMs - row.startedAtMs);
  if (row.state === 'waiting' || row.changedAtMs === null) return null;
  return Math.max(0, row.changedAtMs - row.startedAtMs);
}
