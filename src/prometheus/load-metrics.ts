/**
 * A load's metrics snapshot, read in the thread that runs it (the main thread, or each load
 * worker): the recorder's cells and figures, plus what only the running load knows — the
 * requests in flight and the arrival rate its pacer asks for now. Read when asked (a scrape, or a
 * worker's periodic report), never per request.
 */
import type { LiveLoadGauges, LiveSnapshot } from '../contract/live-snapshot.ts';
import type { RunClock } from '../driver/run-clock.ts';
import type { LoadGauges } from '../driver/run-load.ts';
import { buildMetricsSnapshot, type MetricsReadOptions, type MetricsSnapshot } from './metrics-snapshot.ts';
import type { Recorder } from '../metrics/recorder.ts';

/** The running load's gauges: set once it has started (runLoad's onStart); until then, zeros. */
export interface LoadGaugesProbe {
  gauges: LoadGauges | null;
}

export function newLoadGaugesProbe(): LoadGaugesProbe {
  return { gauges: null };
}

/** What the live views read of the running load at `nowMs` (run clock); null before it has started. */
export function readLiveGauges(probe: LoadGaugesProbe, nowMs: number): LiveLoadGauges | null {
  const gauges = probe.gauges;
  if (gauges === null) return null;
  return {
    offeredPerS: gauges.offeredByWorkload(nowMs),
    replayReleased: gauges.releasedByWorkload(),
    inFlight: gauges.inFlight,
  };
}

/** The load's metrics now (`live`: the recorder's live snapshot of this moment, when already taken); null before its clock has started. */
export function readLoadMetrics(
  recorder: Recorder,
  clock: RunClock,
  probe: LoadGaugesProbe,
  options: MetricsReadOptions,
  live?: LiveSnapshot,
): MetricsSnapshot | null {
  if (!clock.started) return null;
  const nowMs = live?.elapsedMs ?? clock.now();
  return buildMetricsSnapshot(
    recorder,
    live ?? recorder.snapshot(nowMs),
    {
      inFlight: probe.gauges?.inFlight ?? 0,
      offeredArrivalRate: probe.gauges?.offeredRatePerS(nowMs) ?? 0,
      ...(probe.gauges === null ? {} : { offeredByWorkload: probe.gauges.offeredByWorkload(nowMs) }),
    },
    options,
    clock.originEpochMs,
  );
}
