/**
 * A load run in progress, in this thread or spread over worker threads (`--workers N`): the same
 * three questions either way — what do the live views show, what has been recorded so far (for a
 * checkpoint), and how did it end. The session never asks which kind it has.
 */
import type { LiveLoadGauges, LiveSnapshot } from '../contract/live-snapshot.ts';
import { RunClock } from '../driver/run-clock.ts';
import type { HttpDebug } from '../driver/http-debug.ts';
import { runLoad } from '../driver/run-load.ts';
import type { MetricsReadOptions, MetricsSnapshot } from '../prometheus/metrics-snapshot.ts';
import type { RecordedData } from '../metrics/recorded-data.ts';
import { Recorder } from '../metrics/recorder.ts';
import type { Plan } from '../profile/plan.ts';
import { newLoadGaugesProbe, readLiveGauges, readLoadMetrics } from '../prometheus/load-metrics.ts';
import { dimensionsOf } from './recorder-dimensions.ts';
import { LoadWorkers } from './workers/load-workers.ts';
import { usableWorkers } from './workers/shard-plan.ts';

export interface RunningLoad {
  readonly clock: RunClock;
  /** Worker threads carrying the load (1 = this thread). */
  readonly workers: number;
  /** The latest live figures (cheap; views call it a few times a second). */
  snapshot(): LiveSnapshot;
  /** What only the running load knows now (offered rates, a replay's calls released), summed over workers; null before it started. */
  gauges(): LiveLoadGauges | null;
  /** Everything recorded so far, for a checkpoint. */
  recorded(): Promise<RecordedData>;
  /** The threshold selections recorded so far (what a threshold judged while the run goes reads). */
  selections(): Promise<NonNullable<RecordedData['bySelector']>>;
  /**
   * The metrics `--metrics-listen` exposes (summed over workers; a finished worker keeps its last
   * figures); null without `metrics` or before any figures.
   */
  metrics(): MetricsSnapshot | null;
  /** Resolves when the load has ended (completed, or stopped through the signal). */
  finished(): Promise<FinishedLoad>;
}

export interface FinishedLoad {
  readonly status: 'completed' | 'aborted';
  readonly data: RecordedData;
  /** What the result should say about how the load ran (e.g. workers that never reported). */
  readonly notes: readonly string[];
}

/** Stopped workers get the driver's grace and drain time plus a margin before they are terminated. */
const WORKER_STOP_TIMEOUT_MS = 2500;

/**
 * Start the plan's load against `plan.target` (resolved by the caller). Aborting `signal` stops
 * it gracefully. A configuration error found while starting (no client gets a token) rejects
 * `finished()` with an RpcloadError.
 */
export function startLoad(
  plan: Plan & { readonly target: string },
  options: {
    readonly workers: number;
    readonly signal: AbortSignal;
    /** Start the clock at this wall-clock instant (epoch ms) once ready, not at once (`--start-at`). */
    readonly startAtEpochMs?: number | null;
    /** `--metrics-listen`: how to read the metrics snapshots; null/absent = no metrics. */
    readonly metrics?: MetricsReadOptions | null;
    /** The values the run's setup saved (`{{setup.NAME}}`); null/absent = none. */
    readonly setupValues?: Readonly<Record<string, unknown>> | null;
    /** `--http-debug`: prints the first exchanges (one thread only: the CLI refuses it with workers). */
    readonly httpDebug?: HttpDebug | null;
  },
): RunningLoad {
  const startAt = options.startAtEpochMs ?? null;
  const clock = new RunClock();
  // With workers, this recorder stays empty: it only supplies zero figures until they report.
  const recorder = new Recorder(dimensionsOf(plan), { rateLimit: plan.rateLimit });
  const count = usableWorkers(options.workers, plan);
  const metrics = options.metrics ?? null;
  if (count === 1) {
    const probe = newLoadGaugesProbe();
    return {
      clock,
      workers: 1,
      snapshot: () => recorder.snapshot(clock.now()),
      gauges: () => (clock.started ? readLiveGauges(probe, clock.now()) : null),
      // A checkpoint while the load runs on this thread: encoded in slices, not one long stop of its sending loop.
      recorded: () => recorder.serializeGradually(),
      selections: () => Promise.resolve(recorder.selectionsOnly().bySelector ?? {}),
      metrics: () => (metrics === null ? null : readLoadMetrics(recorder, clock, probe, metrics)),
      finished: async () => {
        const outcome = await runLoad({
          plan,
          baseUrl: plan.target,
          recorder,
          clock,
          signal: options.signal,
          setupValues: options.setupValues ?? null,
          httpDebug: options.httpDebug ?? null,
          onStart: (gauges) => (probe.gauges = gauges),
          startClock: async () => {
            await waitUntilEpoch(startAt, options.signal);
            clock.start();
          },
        });
        return { status: outcome.status, data: recorder.serialize(), notes: [] };
      },
    };
  }
  const workers = new LoadWorkers({
    plan,
    count,
    clock,
    signal: options.signal,
    empty: (nowMs) => recorder.snapshot(nowMs),
    stopTimeoutMs: WORKER_STOP_TIMEOUT_MS,
    metrics,
    setupValues: options.setupValues ?? null,
    beforeStart: () => waitUntilEpoch(startAt, options.signal),
  });
  return {
    clock,
    workers: count,
    snapshot: () => workers.snapshot(clock.now()),
    gauges: () => workers.gauges(),
    recorded: () => workers.recorded(),
    selections: async () => (await workers.recorded('selections')).bySelector ?? {},
    metrics: () => workers.metrics(),
    finished: async () => {
      const run = await workers.run();
      const missing = count - run.reported;
      const notes =
        missing > 0
          ? [
              `${missing} of ${count} load workers did not report in time after the stop: their requests are missing from this result`,
            ]
          : [];
      return { status: run.status, data: run.data, notes };
    },
  };
}

/** The longest single timer of the wait: Node treats delays over 2^31 − 1 ms as 1 ms. */
const MAX_TIMER_MS = 60_000;

/**
 * Resolve at the wall-clock instant `epochMs` (at once when null or past), or as soon as `signal`
 * aborts: a shard parked until its start still stops on the first Ctrl-C.
 */
export function waitUntilEpoch(epochMs: number | null, signal: AbortSignal): Promise<void> {
  if (epochMs === null || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    const arm = (): void => {
      const left = epochMs - Date.now();
      if (left <= 0) finish();
      else timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    };
    signal.addEventListener('abort', finish, { once: true });
    arm();
  });
}
