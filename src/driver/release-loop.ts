/**
 * The skeleton the timed load kinds share (a rate's arrivals, open-loop.ts; a recording's calls,
 * replay-loop.ts): one timer loop that wakes when the next arrival falls due, runs the kind's
 * `tick` to release what is due, and ends at the phase's end — never before it, as a timer may
 * fire up to a millisecond early against the run clock. What each kind releases, and what it does
 * at the end, is its own.
 */
import { cancelWake, safeTimeout, wakeSoon, type WakeHandle } from '../util/timers.ts';

/** How one phase of a load kind runs: the runner awaits `done`, and `stop` ends it at once. */
export interface PhaseRun {
  readonly done: Promise<void>;
  stop(): void;
  /**
   * Arrivals per second its schedule asks for at `nowMs` (run clock) — a rate's pacer, a replay's
   * recording at its speed over the last second; null for a closed-model kind, which offers none.
   */
  offeredRatePerS(nowMs: number): number | null;
  /** A replay's calls released so far (fallen due: sent, or skipped); absent for the other kinds. */
  released?(): number;
}

export class ReleaseLoop {
  private timer: WakeHandle | null = null;
  private endTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private finish!: () => void;
  readonly done = new Promise<void>((resolve) => (this.finish = resolve));
  /** Made once: a timer's callback without a closure per wake. */
  private readonly run = (): void => {
    this.timer = null;
    if (!this.stopped) this.tick();
  };

  /**
   * `tick` releases what is due (and calls `wake` for the next, or `stop`); `onEnd` runs once the
   * run clock has reached `endMs` (call `stop` from it).
   */
  constructor(
    private readonly now: () => number,
    private readonly tick: () => void,
    endMs: number,
    onEnd: () => void,
  ) {
    const atEnd = (): void => {
      if (this.stopped) return;
      if (this.now() < endMs) {
        this.endTimer = safeTimeout(atEnd, endMs - this.now());
        return;
      }
      onEnd();
    };
    this.endTimer = safeTimeout(atEnd, endMs - now());
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Whether a wake is pending (the loop is waiting for its next arrival). */
  get waiting(): boolean {
    return this.timer !== null;
  }

  /** Run `tick` at `atMs` on the run clock: a timer a millisecond short, then turns of the event loop. */
  wake(atMs: number): void {
    this.timer = wakeSoon(atMs - this.now(), this.run);
  }

  /** Run `tick` now, cancelling a pending wake. */
  tickNow(): void {
    this.cancelWake();
    this.run();
  }

  /** Every arrival is out: `done` resolves, the end still comes at the phase's end (or a stop). */
  released(): void {
    this.finish();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.endTimer);
    this.cancelWake();
    this.finish();
  }

  private cancelWake(): void {
    if (this.timer === null) return;
    cancelWake(this.timer);
    this.timer = null;
  }
}

/** Arrivals per 10 ms over the last second: a replay's offered rate, read when scraped (never per call). */
export class TrailingRate {
  private static readonly BUCKETS = 100;
  private static readonly BUCKET_MS = 10;
  private readonly counts = new Float64Array(TrailingRate.BUCKETS);
  /** The 10 ms slot each bucket last counted (to tell a stale bucket from a fresh one). */
  private readonly slots = new Float64Array(TrailingRate.BUCKETS).fill(-1);

  /** One arrival due at `dueMs`. */
  add(dueMs: number): void {
    const slot = Math.floor(dueMs / TrailingRate.BUCKET_MS);
    const i = slot % TrailingRate.BUCKETS;
    if (this.slots[i] !== slot) {
      this.slots[i] = slot;
      this.counts[i] = 0;
    }
    this.counts[i]!++;
  }

  /** Arrivals due in the second before `nowMs`, per second. */
  perS(nowMs: number): number {
    const last = Math.floor(nowMs / TrailingRate.BUCKET_MS);
    let sum = 0;
    for (let i = 0; i < TrailingRate.BUCKETS; i++) {
      const slot = this.slots[i]!;
      if (slot > last - TrailingRate.BUCKETS && slot <= last) sum += this.counts[i]!;
    }
    return sum;
  }
}
