/**
 * What `ratelimit.threshold` observed, as plain records: the bursts of its procedure and the
 * continued load after them. The verdict (ratelimit-threshold.ts) and the load reading
 * (threshold-load.ts) both read these.
 */
import type { RoundTrip } from '../round-trip.ts';

export interface BurstRecord {
  /**
   * `idle`: from a client rested before the check; `reset`: right after waiting for the previous
   * refusal's reset; `rested`: after a whole window without an admission (see nextBurst).
   */
  readonly kind: 'idle' | 'reset' | 'rested';
  /** In send order: refusals polled one at a time before the first admission (reset bursts), then the burst. */
  readonly roundTrips: readonly RoundTrip[];
  /** Requests in flight at once during the burst (1 = one at a time). */
  readonly concurrency: number;
  /** `not-readmitted`: a reset burst that kept being refused for a window after the announced reset. */
  readonly stop: 'refused' | 'failed' | 'cap' | 'not-readmitted';
}

export interface ThresholdObservation {
  readonly limit: number;
  readonly windowMs: number;
  readonly bursts: readonly BurstRecord[];
  /** Continued load after the last burst; null when the procedure stopped earlier. */
  readonly load: LoadRecord | null;
}

export interface BurstSummary {
  readonly kind: BurstRecord['kind'];
  readonly startMs: number;
  readonly endMs: number;
  readonly admitted: number;
  /** Refusals before the first admission (a Retry-After that was too short). */
  readonly refusedBeforeAdmission: number;
  /** The refusal that ended the burst (the first one received after an admission). */
  readonly refusal: RoundTrip | null;
  readonly concurrency: number;
  readonly stop: BurstRecord['stop'];
}

/** Step 3's load at twice the contract rate: when requests were sent, and how each ended. */
export interface LoadRecord {
  readonly intervalMs: number;
  readonly roundTrips: readonly RoundTrip[];
}
