/**
 * The pacer: when each arrival of an open-model phase is due, and the rate the schedule asks for
 * at any moment of it. The open loop releases arrivals at its times; the live metrics read its
 * rate (the offered arrival rate gauge), so the two never disagree.
 *
 * Two arrival processes along the phase's rate, both pure functions of the load and the arrival's
 * index (plus, for Poisson, a seeded random stream), so a long run never drifts (times are
 * computed, not accumulated) and the schedule is testable without a clock. A phase with rate
 * r0 → r1 over D seconds expects N(t) = r0·t + (r1 − r0)·t² / (2D) arrivals by time t.
 * - uniform: arrival k (0-based) is due when N(t) = k.
 * - poisson: arrival k is due when N(t) = S_k, S_k being the sum of k + 1 exponential gaps of
 *   mean 1 (a unit-rate Poisson process carried through N's inverse: a Poisson process of the
 *   phase's rate, ramps included); the phase holds the arrivals with S_k < N(D), so its count is
 *   Poisson with mean rate × duration.
 * A replayed recording is not paced here: its times come from the file (replay-loop.ts).
 */
import type { ArrivalProcess } from '../profile/plan.ts';
import type { RateLoad } from '../profile/phase-load.ts';

/** One open-model phase's schedule. */
export interface Pacer {
  /**
   * Offset (ms from the phase's start) at which arrival `k` (0-based) is due; Infinity when the
   * phase holds no arrival k. Asked for k = 0, 1, 2, … in order (the same k possibly more than
   * once), so a random process may draw each gap when first asked.
   */
  dueOffsetMs(k: number): number;
  /** Arrivals per second the schedule asks for `elapsedMs` into the phase; 0 outside it. */
  rateAt(elapsedMs: number): number;
}

/**
 * The pacer of a phase of `load` lasting `durationMs`, its arrivals `arrivals`; `random` (seeded,
 * uniform in [0, 1)) draws a Poisson process's gaps.
 */
export function createPacer(
  load: RateLoad,
  durationMs: number,
  arrivals: ArrivalProcess = 'uniform',
  random?: () => number,
): Pacer {
  if (arrivals === 'poisson') {
    if (random === undefined) throw new Error('a Poisson pacer needs a seeded random');
    return new PoissonPacer(load, durationMs, random);
  }
  return new UniformPacer(load, durationMs);
}

/** Arrivals evenly spaced along the phase's rate (constant or ramp). */
class UniformPacer implements Pacer {
  private readonly count: number;

  constructor(
    protected readonly load: RateLoad,
    protected readonly durationMs: number,
  ) {
    this.count = arrivalCount(load, durationMs);
  }

  dueOffsetMs(k: number): number {
    return k < this.count ? arrivalOffsetMs(this.load, this.durationMs, k) : Number.POSITIVE_INFINITY;
  }

  rateAt(elapsedMs: number): number {
    if (!(elapsedMs >= 0 && elapsedMs < this.durationMs)) return 0;
    const { fromPerS, toPerS } = this.load;
    return fromPerS + ((toPerS - fromPerS) * elapsedMs) / this.durationMs;
  }
}

/** A Poisson process along the phase's rate: exponential gaps in N(t), drawn when first asked for. */
class PoissonPacer extends UniformPacer {
  /** N(D): the phase's expected arrivals; arrival k belongs to it while S_k is below. */
  private readonly expected: number;
  /** The last arrival drawn and its S_k (-1: none yet). */
  private drawnK = -1;
  private drawnS = 0;

  constructor(
    load: RateLoad,
    durationMs: number,
    private readonly random: () => number,
  ) {
    super(load, durationMs);
    this.expected = ((load.fromPerS + load.toPerS) / 2) * (durationMs / 1000);
  }

  override dueOffsetMs(k: number): number {
    // Asked in order (the same k possibly again): draw the gaps up to k.
    while (this.drawnK < k) {
      this.drawnS -= Math.log1p(-this.random()); // an exponential gap of mean 1 (1 − random is in (0, 1])
      this.drawnK++;
    }
    return this.drawnS < this.expected
      ? arrivalOffsetMs(this.load, this.durationMs, this.drawnS)
      : Number.POSITIVE_INFINITY;
  }
}

/**
 * Offset (ms from phase start) at which N(t) = `k`: arrival k when spaced evenly along the rate (k
 * need not be whole: a Poisson pacer asks for its S_k).
 */
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
export function releaseAtMs(
  dueMs: number,
  previousReleaseMs: number,
  intervalMs: number,
  catchUpFactor: number,
): number {
  return Math.max(dueMs, previousReleaseMs + intervalMs / catchUpFactor);
}
