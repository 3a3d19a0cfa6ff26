/** The live snapshot: the plain records live views pull from the recorder during a run. */
import type { Percentiles, TimelineRow } from './result-schema.ts';

/** One distinct failure: which request kind, its outcome and sanitized detail, how often and when. */
export interface RecentError {
  readonly source: 'api' | 'token';
  readonly outcome: string;
  readonly detail: string;
  readonly count: number;
  /** First and latest completion with this error, ms since the run's origin. */
  readonly firstAtMs: number;
  readonly lastAtMs: number;
}

/** One client as the live views show it. */
export interface LiveClientRow {
  readonly id: string;
  /** API requests completed (token requests apart). */
  readonly sent: number;
  /** Passed the server's limiter (any response but 429 and 401). */
  readonly admitted: number;
  /** Refused with 429. */
  readonly refused: number;
  /** Admitted in the current contract window (windows aligned to run start); 0 without a contract. */
  readonly admittedInWindow: number;
  /** Retry-After (s) of the latest 429 with a usable one, and when it completed (ms since run start). */
  readonly lastRetryAfterS: number | null;
  readonly lastRetryAfterAtMs: number | null;
}

/**
 * One workload as the live views show it: what it completed, how fast and how well. Offered rates
 * are not here: only the running load knows them (LiveLoadGauges).
 */
export interface LiveWorkloadRow {
  readonly name: string;
  /** API requests completed. */
  readonly requests: number;
  readonly success: number;
  readonly rateLimited: number;
  readonly errors: number;
  /** Completions in the last whole second. */
  readonly rpsLastSecond: number;
  /** Latency since the start (ms); zeros before its first request. */
  readonly latencyMs: { readonly p50: number; readonly p99: number };
  /** Null when none of its requests had a schedule (closed model, iterations). */
  readonly scheduleLagP99Ms: number | null;
  /** Successes within the SLO's latency bound so far (every success when the run has no such bound). */
  readonly goodput: number;
  /** Arrivals or calls not sent, every reason together. */
  readonly skipped: number;
}

/**
 * What only the running load knows at a moment (its schedules, not the recorder): read beside each
 * snapshot, summed over worker threads. Per workload, in the plan's order.
 */
export interface LiveLoadGauges {
  /** Arrivals per second each workload's schedule asks for now (0 in a closed model, before its start, after its end). */
  readonly offeredPerS: readonly number[];
  /** Calls each replay workload has released so far (fallen due, then sent or skipped); 0 for the other kinds. */
  readonly replayReleased: readonly number[];
  /** Requests sent and not yet finished. */
  readonly inFlight: number;
}

/**
 * What live views pull from the recorder a few times a second: cumulative figures, recent rates
 * and the tail of the timeline. A plain record of copies: holding it never pins recorder state.
 */
export interface LiveSnapshot {
  /** The `nowMs` the snapshot was taken at: ms since the run's origin. */
  readonly elapsedMs: number;
  readonly requests: number;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly success: number;
  readonly rateLimited: number;
  readonly errors: number;
  /** Cumulative since the start. */
  readonly latencyMs: Percentiles;
  readonly serviceTimeMs: Percentiles;
  /** Null when no request had a schedule (closed model only). */
  readonly scheduleLagMs: Percentiles | null;
  /** Completions in the last whole second before `elapsedMs`, and per second over the last 10 whole seconds. */
  readonly rpsLastSecond: number;
  readonly rpsLast10s: number;
  /** The last ≤ 120 seconds, up to the current partial second, with zero rows where nothing completed. */
  readonly timeline: readonly TimelineRow[];
  /** In the order of the recorder's client dimension. */
  readonly clients: readonly LiveClientRow[];
  readonly tokens: { readonly requests: number; readonly failures: number; readonly latencyMs: Percentiles };
  readonly skipped: Readonly<Record<string, number>>;
  /** The same by workload name, for the skips the driver attributes to one; absent while there are none. */
  readonly skippedByWorkload?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Distinct recent failures (sanitized), most recently seen first. */
  readonly recentErrors: readonly RecentError[];
  /** One row per workload, in the recorder's workload order (one row, "default", without workloads). */
  readonly workloads: readonly LiveWorkloadRow[];
}
