import type { LiveSnapshot } from '../../contract/live-snapshot.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import type { PlanOverrides } from '../../profile/build-plan.ts';
import type { ClientPlan } from '../../profile/plan.ts';
import type { LoadRunOutcome } from '../../driver/run-load.ts';

/**
 * Messages between the main thread and the load worker threads of `rpcload run --workers N`.
 * A Plan holds functions (templates, thresholds), so a worker rebuilds it from the profile and
 * takes its share with shardPlan; everything here is plain, structured-cloneable data.
 */
export interface LoadWorkerData {
  readonly index: number;
  readonly count: number;
  /** The interpolated, validated profile and how the main thread built its plan from it. */
  readonly profile: unknown;
  readonly source: string;
  readonly overrides: PlanOverrides;
  /** The run's resolved clients (all of them; the worker takes its share). */
  readonly clients: readonly ClientPlan[];
  /** The URL the run targets (the profile's, or the embedded server's). */
  readonly target: string;
}

export type ToWorker =
  /** Every worker is ready: start the clock at this shared instant (see sharedNowMs). */
  | { readonly type: 'start'; readonly originMs: number }
  /** Stop gracefully (abort): in-flight requests get the grace period, then report 'done'. */
  | { readonly type: 'stop' }
  /** Send the data recorded so far (for a checkpoint). */
  | { readonly type: 'serialize'; readonly id: number };

export type FromWorker =
  /** Tokens are fetched; waiting for 'start'. */
  | { readonly type: 'ready' }
  | { readonly type: 'snapshot'; readonly snapshot: LiveSnapshot }
  | { readonly type: 'serialized'; readonly id: number; readonly data: RecordedData }
  | { readonly type: 'done'; readonly outcome: LoadRunOutcome; readonly data: RecordedData }
  /** The worker's run failed; `code` set when it was a configuration error (RpcloadError). */
  | { readonly type: 'failed'; readonly message: string; readonly code: string | null };
