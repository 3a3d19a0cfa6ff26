/**
 * Messages between the main thread and the load worker threads of `rpcload run --workers N`.
 * A worker receives its share of the plan as it is (a Plan is plain data); everything here is
 * structured-cloneable.
 */
import type { LiveLoadGauges, LiveSnapshot } from '../../contract/live-snapshot.ts';
import type { MetricsReadOptions, MetricsSnapshot } from '../../prometheus/metrics-snapshot.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import type { Plan } from '../../profile/plan.ts';
import type { LoadRunOutcome } from '../../driver/run-load.ts';

/** All the recorded data, or only the threshold selections'. */
export type RecordedScope = 'all' | 'selections';

export interface LoadWorkerData {
  /** The worker's share (shardPlan), with the target the run actually uses. */
  readonly plan: Plan;
  /** `--metrics-listen`: how to read the metrics snapshots to post; null = post none. */
  readonly metrics: MetricsReadOptions | null;
  /** The values the run's setup saved (`{{setup.NAME}}`); null = none. */
  readonly setupValues: Readonly<Record<string, unknown>> | null;
}

export type ToWorker =
  /** Every worker is ready: start the clock at this shared instant (see sharedNowMs). */
  | { readonly type: 'start'; readonly originMs: number }
  /** Stop gracefully (abort): in-flight requests get the grace period, then report 'done'. */
  | { readonly type: 'stop' }
  /** Send the data recorded so far (for a checkpoint), or only its threshold selections (for a live threshold). */
  | { readonly type: 'serialize'; readonly id: number; readonly scope: RecordedScope };

export type FromWorker =
  /** Tokens are fetched; waiting for 'start'. */
  | { readonly type: 'ready' }
  /** The worker's live figures, and its load's gauges of the same moment (null before its load started). */
  | { readonly type: 'snapshot'; readonly snapshot: LiveSnapshot; readonly gauges: LiveLoadGauges | null }
  /** With `--metrics-listen`: the worker's metrics, once a second and once more just before 'done'. */
  | { readonly type: 'metrics'; readonly metrics: MetricsSnapshot }
  | { readonly type: 'serialized'; readonly id: number; readonly data: RecordedData }
  | { readonly type: 'done'; readonly outcome: LoadRunOutcome; readonly data: RecordedData }
  /** The worker's run failed; `code` set when it was a configuration error (RpcloadError). */
  | { readonly type: 'failed'; readonly message: string; readonly code: string | null };
