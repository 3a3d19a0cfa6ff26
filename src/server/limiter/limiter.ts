/**
 * Rate limiters are pure state machines over an injected clock: every call takes `nowMs`, nothing
 * reads the time or does I/O, so each algorithm is tested with tables of (time, expected verdict).
 */

/** Verdict for one request. */
export interface LimitDecision {
  readonly admitted: boolean;
  /** When refused: ms until a request would be admitted (> 0). 0 when admitted. */
  readonly retryAfterMs: number;
}

export interface LimiterSettings {
  /** Requests admitted per window. */
  readonly limit: number;
  readonly windowMs: number;
  /**
   * The `count-refused` fault: refused requests count too, so a client that keeps retrying while
   * throttled stays blocked; one that waits out its Retry-After without sending is admitted.
   */
  readonly countRefused?: boolean;
}

export const ADMITTED: LimitDecision = Object.freeze({ admitted: true, retryAfterMs: 0 });

export function refused(retryAfterMs: number): LimitDecision {
  return { admitted: false, retryAfterMs };
}

/**
 * One algorithm. `check` is a query (it may drop expired state, which changes no verdict);
 * `record` counts a request. They are separate so the `racy-counter` fault can put an await
 * between them; `decide` is the correct, atomic use.
 */
export abstract class Limiter {
  protected readonly limit: number;
  protected readonly windowMs: number;
  protected readonly countRefused: boolean;

  constructor(settings: LimiterSettings) {
    this.limit = settings.limit;
    this.windowMs = settings.windowMs;
    this.countRefused = settings.countRefused ?? false;
  }

  abstract check(key: string, nowMs: number): LimitDecision;

  /** Count a request at `nowMs`; `admitted` is false only when refused requests count. */
  abstract record(key: string, nowMs: number, admitted: boolean): void;

  /** Forget keys whose state is idle (equivalent to never seen), so memory tracks active clients. */
  abstract sweep(nowMs: number): void;

  /** Number of keys currently holding state. */
  abstract get size(): number;

  /** Check and, when admitted (or when refused requests count), record: one atomic decision. */
  decide(key: string, nowMs: number): LimitDecision {
    const decision = this.check(key, nowMs);
    if (decision.admitted) {
      this.record(key, nowMs, true);
      return decision;
    }
    if (!this.countRefused) return decision;
    this.record(key, nowMs, false);
    // The refusal moved the reset: announce the new one, so a client that waits it out is admitted.
    return this.check(key, nowMs);
  }
}
