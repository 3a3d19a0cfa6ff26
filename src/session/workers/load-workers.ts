/**
 * The main thread's side of `rpcload run --workers N`: starts N load workers (load-worker-entry),
 * waits until every one has its tokens, starts them all on one shared clock origin, relays an
 * abort as a graceful stop, merges their live snapshots for the views and their recorded data
 * (exactly, mergeRecordedData) for checkpoints and the result. A worker that has not reported
 * within the drain time after a stop is terminated; the run then says how many reported.
 */
import type { Worker } from 'node:worker_threads';
import { RpcloadError } from '../../errors.ts';
import { startModuleWorker } from '../../util/module-worker.ts';
import type { LiveLoadGauges, LiveSnapshot } from '../../contract/live-snapshot.ts';
import { mergeRecordedData } from '../../metrics/merge-recorded.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import {
  sumMetricsSnapshots,
  type MetricsReadOptions,
  type MetricsSnapshot,
} from '../../prometheus/metrics-snapshot.ts';
import type { Plan } from '../../profile/plan.ts';
import type { FromWorker, LoadWorkerData, RecordedScope, ToWorker } from './load-worker-protocol.ts';
import { shardPlan } from './shard-plan.ts';
import { mergeLiveSnapshots, sumLoadGauges } from '../../metrics/merge-live-snapshots.ts';
import { sharedNowMs, type RunClock } from '../../driver/run-clock.ts';
import type { LoadRunOutcome } from '../../driver/run-load.ts';

export interface WorkerRunOptions {
  /** The run's plan, target resolved; each worker gets its share (shardPlan). */
  readonly plan: Plan;
  /** The values the run's setup saved, for every worker's templates; null or absent = none. */
  readonly setupValues?: Readonly<Record<string, unknown>> | null;
  readonly count: number;
  readonly clock: RunClock;
  readonly signal: AbortSignal;
  /** Zero figures in the run's dimensions, shown until the workers report. */
  readonly empty: (nowMs: number) => LiveSnapshot;
  /** How long stopped workers get to report before they are terminated (ms). */
  readonly stopTimeoutMs: number;
  /** `--metrics-listen`: how workers read the metrics snapshots they post; null = none. */
  readonly metrics: MetricsReadOptions | null;
  /** Awaited once every worker is ready, before the shared origin is taken (`--start-at`). */
  readonly beforeStart?: () => Promise<void>;
}

export interface WorkerRunOutcome extends LoadRunOutcome {
  readonly data: RecordedData;
  /** Workers whose data is in `data` (fewer than started only when one was terminated). */
  readonly reported: number;
}

interface WorkerState {
  readonly worker: Worker;
  ready: boolean;
  snapshot: LiveSnapshot | null;
  /** Its load's gauges with that snapshot (a finished worker offers nothing more: zeros then). */
  gauges: LiveLoadGauges | null;
  /** The worker's latest metrics (kept after it ends: counters never go back). */
  metrics: MetricsSnapshot | null;
  done: { outcome: LoadRunOutcome; data: RecordedData } | null;
  exited: boolean;
}

export class LoadWorkers {
  private readonly states: WorkerState[];
  private readonly serializeWaiters = new Map<
    number,
    { pending: number; parts: RecordedData[]; resolve: (data: RecordedData) => void }
  >();
  private nextRequestId = 0;

  constructor(private readonly o: WorkerRunOptions) {
    this.states = Array.from({ length: o.count }, (_, index) => ({
      worker: startModuleWorker(import.meta.url, 'load-worker-entry', {
        plan: shardPlan(o.plan, index, o.count),
        metrics: o.metrics,
        setupValues: o.setupValues ?? null,
      } satisfies LoadWorkerData),
      ready: false,
      snapshot: null,
      gauges: null,
      metrics: null,
      done: null,
      exited: false,
    }));
  }

  /** The workers' latest live figures, combined. */
  snapshot(nowMs: number): LiveSnapshot {
    const parts = this.states.flatMap((s) => (s.snapshot === null ? [] : [s.snapshot]));
    const empty = this.o.empty(nowMs);
    return {
      ...mergeLiveSnapshots(
        parts,
        empty,
        empty.clients.map((c) => c.id),
      ),
      elapsedMs: nowMs,
    };
  }

  /** The workers' load gauges, summed (a finished worker's offer is over, its replay's calls still count); null before any reported. */
  gauges(): LiveLoadGauges | null {
    return sumLoadGauges(
      this.states.flatMap((s) => {
        if (s.gauges === null) return [];
        return s.done === null
          ? [s.gauges]
          : [{ ...s.gauges, offeredPerS: s.gauges.offeredPerS.map(() => 0), inFlight: 0 }];
      }),
    );
  }

  /** The workers' latest metrics, summed exactly; null before any reported. */
  metrics(): MetricsSnapshot | null {
    return sumMetricsSnapshots(this.states.flatMap((s) => (s.metrics === null ? [] : [s.metrics])));
  }

  /**
   * Everything recorded so far (for a checkpoint), or only the threshold selections (for a live
   * threshold): finished workers' final data, the others' current.
   */
  recorded(scope: RecordedScope = 'all'): Promise<RecordedData> {
    const running = this.states.filter((s) => s.done === null && !s.exited);
    const finished = this.states.flatMap((s) => (s.done === null ? [] : [s.done.data]));
    if (running.length === 0) return Promise.resolve(mergeRecordedData(finished));
    const id = this.nextRequestId++;
    return new Promise((resolve) => {
      this.serializeWaiters.set(id, { pending: running.length, parts: [...finished], resolve });
      for (const s of running) s.worker.postMessage({ type: 'serialize', id, scope } satisfies ToWorker);
    });
  }

  /** Run to the end (or to a graceful stop on abort); rejects when a worker's run fails to start. */
  async run(): Promise<WorkerRunOutcome> {
    const { signal } = this.o;
    const settled = this.states.map((state) => this.watch(state));
    const stop = (): void => this.broadcast({ type: 'stop' });
    // Stopped already (a signal while the workers were starting): they stop as soon as they can.
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      // Each worker is ready, or has failed (its run's error), or ended without ever being ready.
      const ready = this.states.map((state, i) =>
        Promise.race([
          this.until(state, (s) => s.ready),
          settled[i]!.then(() => {
            if (!state.ready) throw new Error('a load worker ended before the run started');
          }),
        ]),
      );
      await Promise.all(ready);
      await this.o.beforeStart?.();
      const originMs = sharedNowMs();
      this.o.clock.startAt(originMs);
      this.broadcast({ type: 'start', originMs });
      const ended = Promise.all(settled);
      let timer: NodeJS.Timeout | undefined;
      // After a stop, workers get their grace and drain time; then whatever is left is terminated.
      const deadline = new Promise<void>((resolve) => {
        const arm = (): void => void (timer = setTimeout(resolve, this.o.stopTimeoutMs));
        if (signal.aborted) arm();
        else signal.addEventListener('abort', arm, { once: true });
      });
      await Promise.race([ended, deadline]);
      clearTimeout(timer);
      const reports = this.states.flatMap((s) => (s.done === null ? [] : [s.done]));
      return {
        status: signal.aborted || reports.some((r) => r.outcome.status === 'aborted') ? 'aborted' : 'completed',
        clientsWithToken: reports.reduce((sum, r) => sum + r.outcome.clientsWithToken, 0),
        data: mergeRecordedData(reports.map((r) => r.data)),
        reported: reports.length,
      };
    } finally {
      signal.removeEventListener('abort', stop);
      await Promise.all(this.states.flatMap((s) => (s.exited ? [] : [s.worker.terminate()])));
    }
  }

  private broadcast(message: ToWorker): void {
    for (const s of this.states) if (!s.exited && s.done === null) s.worker.postMessage(message);
  }

  /** Follows one worker's messages; resolves when it is done or gone, rejects when its run failed. */
  private watch(state: WorkerState): Promise<void> {
    return new Promise((resolve, reject) => {
      state.worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') state.ready = true;
        else if (message.type === 'snapshot') {
          state.snapshot = message.snapshot;
          state.gauges = message.gauges;
        } else if (message.type === 'metrics') state.metrics = message.metrics;
        else if (message.type === 'serialized') this.onSerialized(message.id, message.data);
        else if (message.type === 'done') {
          state.done = { outcome: message.outcome, data: message.data };
          resolve();
        } else {
          reject(
            message.code === null
              ? new Error(`a load worker failed: ${message.message}`)
              : new RpcloadError(message.code, message.message),
          );
        }
        this.wake();
      });
      state.worker.on('error', (err) => reject(err));
      state.worker.once('exit', () => {
        state.exited = true;
        // A worker gone without data: answer any checkpoint waiting on it with the others' data.
        for (const [id, waiter] of this.serializeWaiters) if (waiter.pending > 0) this.onSerialized(id, null);
        resolve();
        this.wake();
      });
    });
  }

  private onSerialized(id: number, data: RecordedData | null): void {
    const waiter = this.serializeWaiters.get(id);
    if (waiter === undefined) return;
    if (data !== null) waiter.parts.push(data);
    if (--waiter.pending > 0) return;
    this.serializeWaiters.delete(id);
    waiter.resolve(mergeRecordedData(waiter.parts));
  }

  private waiters: (() => void)[] = [];

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }

  private until(state: WorkerState, condition: (s: WorkerState) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => (condition(state) ? resolve() : void this.waiters.push(check));
      check();
    });
  }
}
