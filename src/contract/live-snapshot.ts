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
}
