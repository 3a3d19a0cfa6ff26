/**
 * The blessed dashboard for `rpcload verify`: progress records update the board as they arrive,
 * and the shared dashboard loop draws it four times a second (records are rare; a check's result
 * shows within a frame, and the elapsed time and spinners keep moving in between).
 */
import { performance } from 'node:perf_hooks';
import { applyProgress, emptyBoard, type CheckBoard } from './checks/check-board.ts';
import { renderVerifyFrame } from './checks/verify-frame.ts';
import { startDashboardLoop, type DashboardLoop, type DashboardOptions } from './terminal/dashboard-loop.ts';
import type { CheckProgress, VerifyHeader, VerifyView } from '../contract/live-view.ts';

export type VerifyDashboardOptions = DashboardOptions;

export function createVerifyDashboard(header: VerifyHeader, options: VerifyDashboardOptions): VerifyView {
  let board: CheckBoard = emptyBoard(header.checkIds);
  let loop: DashboardLoop | null = null;
  let startedAt = performance.now();
  return {
    start: () => {
      if (loop !== null) return;
      startedAt = performance.now();
      loop = startDashboardLoop({
        ...options,
        frame: (size, state) =>
          renderVerifyFrame({ header, board, elapsedMs: performance.now() - startedAt, ...state }, size),
      });
    },
    stop: () => {
      loop?.stop();
    },
    onProgress: (record: CheckProgress) => {
      board = applyProgress(board, record).board;
    },
  };
}
