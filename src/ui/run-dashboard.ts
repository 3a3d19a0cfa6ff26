/**
 * The blessed dashboard for `rpcload run`: on each tick it pulls one snapshot, keeps the marks for
 * recent outcome rates, and draws renderRunFrame at the terminal's size. Everything else (timer,
 * keys, terminal restore, stderr) is the shared dashboard loop.
 */
import { renderRunFrame } from './dashboard/run-frame.ts';
import { RateWindow } from './dashboard/run-model.ts';
import { startDashboardLoop, type DashboardLoop, type DashboardOptions } from './terminal/dashboard-loop.ts';
import type { LiveView, ViewSource } from '../contract/live-view.ts';

export type RunDashboardOptions = DashboardOptions;

export function createRunDashboard(source: ViewSource, options: RunDashboardOptions): LiveView {
  let loop: DashboardLoop | null = null;
  return {
    start: () => {
      if (loop !== null) return;
      const rates = new RateWindow();
      loop = startDashboardLoop({
        ...options,
        frame: (size, state) => {
          const snapshot = source.snapshot();
          const earlier = rates.push({ elapsedMs: snapshot.elapsedMs, outcomes: snapshot.outcomes });
          const gauges = source.gauges?.() ?? null;
          const stopReason = source.stopReason?.() ?? null;
          return renderRunFrame({ header: source.header, snapshot, gauges, stopReason, earlier, ...state }, size);
        },
      });
    },
    stop: () => {
      loop?.stop();
    },
  };
}
