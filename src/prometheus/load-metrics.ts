/**
 * A load's metrics snapshot, read in the thread that runs it (the main thread, or each load
 * worker): the recorder's cells and figures, plus what only the driver and the plan know — the
 * requests in flight and the arrival rate the schedule asks for now. Read when asked (a scrape,
 * or a worker's periodic report), never per request.
 */
import type { LiveSnapshot } from '../contract/live-snapshot.ts';
import type { RunClock } from '../driver/run-clock.ts';
import { buildMetricsSnapshot, type MetricsReadOptions, type MetricsSnapshot } from './metrics-snapshot.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { PhasePlan } from '../profile/plan.ts';

/** Arrivals per second the schedule asks for at `nowMs` (phases back to back); 0 in a closed phase and after the last. */
export function offeredArrivalRate(phases: readonly PhasePlan[], nowMs: number): number {
  let startMs = 0;
  for (const phase of phases) {
    if (nowMs < startMs + phase.durationMs) {
      if (phase.load.kind !== 'rate') return 0;
      const { fromPerS, toPerS } = phase.load;
      return fromPerS + ((toPerS - fromPerS) * Math.max(0, nowMs - startMs)) / phase.durationMs;
    }
    startMs += phase.durationMs;
  }
  return 0;
}

/** The driver's view the metrics need: set once the engine exists (see runLoad's onEngine). */
export interface InFlightProbe {
  inFlight: () => number;
}

export function newInFlightProbe(): InFlightProbe {
  return { inFlight: () => 0 };
}

/** The load's metrics now (`live`: the recorder's live snapshot of this moment, when already taken); null before its clock has started. */
export function readLoadMetrics(
  recorder: Recorder,
  phases: readonly PhasePlan[],
  clock: RunClock,
  probe: InFlightProbe,
  options: MetricsReadOptions,
  live?: LiveSnapshot,
): MetricsSnapshot | null {
  if (!clock.started) return null;
  const nowMs = live?.elapsedMs ?? clock.now();
  return buildMetricsSnapshot(
    recorder,
    live ?? recorder.snapshot(nowMs),
    { inFlight: probe.inFlight(), offeredArrivalRate: offeredArrivalRate(phases, nowMs) },
    options,
  );
}
