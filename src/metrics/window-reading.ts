/**
 * One window the server announced, as a client's traffic in one run saw it (the record the
 * ledger keeps), and the pure reading of it against the limit.
 */

/** One announced window: a refusal streak, the reset it announced and the admissions inside. */
export interface WindowReading {
  /** Send time of the streak's first refusal (ms since the run's origin). */
  readonly refusedAtMs: number;
  readonly refusals: number;
  /** Retry-After of the streak's first refusal (s); null when it had none. */
  readonly retryAfterS: number | null;
  /** The announced reset lies in (resetFromMs, resetToMs] (ms since the run's origin). */
  readonly resetFromMs: number;
  readonly resetToMs: number;
  /** Admissions surely inside the window [reset − window, reset) wherever the reset lies in its range. */
  readonly admittedMin: number;
  /** Admissions (and requests of unknown fate) possibly inside it for some reset in the range. */
  readonly admittedMax: number;
  /**
   * The same for windows that start after the client's previous refusal: a window that refused
   * does not admit again, so a window of one limit holds no earlier refusal (a sliding log's may,
   * but a sliding log never holds more than the limit anyway).
   */
  readonly admittedMaxAfterRefusal: number;
  /**
   * When admittedMin ≤ limit < admittedMax: at most `limit` are inside only if the reset lies in
   * (withinLimitFromMs, resetToMs]; null otherwise.
   */
  readonly withinLimitFromMs: number | null;
  /**
   * Admitted since the client was last admitted after a refusal (or since its first request), up to
   * this streak: those completed before its first refusal was sent (one in flight then may have been
   * decided after the reset).
   */
  readonly sinceReset: number;
  /** From the first of those sends to the streak's first refusal's receipt: they all fell within this span. */
  readonly sinceResetSpanMs: number;
  /** The streak's Retry-After values named no common reset (refusals moved it, or it was rounded down): anchored on the last refusal. */
  readonly anchoredOnLast: boolean;
  /** The run ended before the client was admitted again. */
  readonly open: boolean;
  /** Refusals of the streak sent at or after a reset an earlier refusal of it announced (receipt + Retry-After). */
  readonly refusedAfterAnnouncedReset: number;
  /** The admission that ended the streak was sent at or after the earliest reset it announced. */
  readonly readmittedAfterAnnouncedReset: boolean;
  /**
   * For some reset in the range, the window began before the client's first request of this run:
   * what the client sent just before the run (an earlier run, another job) may be inside it, unseen.
   */
  readonly mayBeginBeforeRun: boolean;
  /** `sinceReset` counts from the client's first request of the run: it had not been readmitted after a refusal yet. */
  readonly sinceFirstRequest: boolean;
}

/** How one announced window reads against the limit. */
export type WindowReadingKind = 'exact' | 'early' | 'over' | 'over_unless_aligned' | 'before_run' | 'inconclusive';

/**
 * Pure reading of one window: `over` when more than `limit` are surely inside, `early` when fewer
 * than `limit` can be, `exact` when at most `limit` are and `limit` can be. Between the two, when
 * the client had more than `limit` admitted within less than one window since it was last
 * readmitted, a window starting at its first request (per-client fixed) or any span of one window
 * (sliding log) holds more than `limit`: only a clock-aligned boundary inside explains it
 * (`over_unless_aligned`, settled across windows by the passive verdict). Else `inconclusive`.
 *
 * The run sees only its own requests: a window that may have begun before the client's first
 * request of the run may also hold requests sent before it, and a count since that first request
 * may straddle the end of such a window. Neither can then be read as refused early or as over
 * unless aligned (`before_run`); a window surely over the limit stays `over` — earlier requests
 * would only add to it.
 */
export function readWindow(w: WindowReading, limit: number, windowMs: number): WindowReadingKind {
  if (w.admittedMin > limit) return 'over';
  if (w.admittedMax < limit) return w.mayBeginBeforeRun ? 'before_run' : 'early';
  if (w.admittedMaxAfterRefusal <= limit) return 'exact';
  if (w.sinceReset > limit && w.sinceResetSpanMs < windowMs) {
    return w.sinceFirstRequest ? 'before_run' : 'over_unless_aligned';
  }
  return 'inconclusive';
}
