/**
 * The pacer: when each arrival of an open-model phase is due. Pure functions of the phase's
 * load and the arrival's index, so a long run never drifts (times are computed, not accumulated)
 * and the schedule is testable without a clock.
 *
 * A phase with rate r0 → r1 over D seconds expects N(t) = r0·t + (r1 − r0)·t² / (2D) arrivals by
 * time t; arrival k (0-based) is due when N(t) = k.
 */
export interface RateLoad {
  readonly fromPerS: number;
  readonly toPerS: number;
}

/** Offset (ms from phase start) at which arrival `k` is due. */
export function arrivalOffsetMs(load: RateLoad, durationMs: number, k: number): number {
  const durationS = durationMs / 1000;
  const slope = (load.toPerS - load.fromPerS) / (2 * durationS); // the `a` of a·t² + r0·t = k
  if (Math.abs(slope) < 1e-12) return load.fromPerS > 0 ? (k / load.fromPerS) * 1000 : Number.POSITIVE_INFINITY;
  const discriminant = load.fromPerS * load.fromPerS + 4 * slope * k;
  if (discriminant < 0) return Number.POSITIVE_INFINITY; // a falling ramp that never reaches k
  // Written as 2k / (r0 + √disc) rather than (√disc − r0) / 2a: same root, no cancellation error.
  const denominator = load.fromPerS + Math.sqrt(discriminant);
  return denominator > 0 ? ((2 * k) / denominator) * 1000 : 0;
}

/** How many arrivals the phase holds: those due strictly before its end. */
export function arrivalCount(load: RateLoad, durationMs: number): number {
  const expected = ((load.fromPerS + load.toPerS) / 2) * (durationMs / 1000);
  // Guard against 999.9999999 vs 1000 float noise: N(D) within 1e-9 of an integer is that integer.
  const rounded = Math.round(expected);
  return Math.abs(expected - rounded) < 1e-9 ? rounded : Math.ceil(expected);
}

/**
 * When an arrival may actually be released. On schedule, that is when it is due. After a stall
 * of the event loop, the backlog is released at most `catchUpFactor` × the nominal rate instead
 * of all at once (no burst the server never asked for); latency is still measured from the due
 * time, so the stall shows up honestly in the results.
 */
export function releaseAtMs(dueMs: number, previousReleaseMs: number, intervalMs: number, catchUpFactor: number): number {
  return Math.max(dueMs, previousReleaseMs + intervalMs / catchUpFactor);
}
