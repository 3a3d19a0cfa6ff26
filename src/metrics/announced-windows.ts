/**
 * Per-client readings of the windows the server announced. A refusal streak (429s with no
 * admission sent between them) names one reset through its Retry-After values; the announced
 * window is the contract window that ends there, and the admissions inside it are counted with
 * the reset's uncertainty (the whole-second rounding of Retry-After, the time between send and
 * receipt). Bounded per client: a ring of the recent admissions a window can still reach, and a
 * capped list of readings — never every request of the run.
 */
import { readWindow, type WindowReading } from './window-reading.ts';

/** Readings kept per client: the first ones, then only over/early ones up to the cap. */
export const MAX_WINDOW_READINGS = 40;
export const MAX_FAILING_WINDOW_READINGS_AFTER = 10;
/** How much later than its window a late-completing admission may still be placed. */
const LATE_SLACK_MS = 5000;
const ROUNDING_MS = 1000;

/**
 * Ascending-by-send ring of the admitted (and unknown-fate) requests a window can still reach:
 * fixed capacity, oldest dropped first, allocated on the first request and grown up to the cap.
 */
class RecentAdmissions {
  private sent = new Float64Array(16);
  private done = new Float64Array(16);
  private unknown = new Uint8Array(16);
  /** Index of the oldest entry and the number of entries (positions modulo the capacity). */
  private start = 0;
  private size = 0;

  constructor(private readonly cap: number) {}

  private at(k: number): number {
    return (this.start + k) % this.sent.length;
  }

  private grow(): void {
    const capacity = Math.min(this.cap, this.sent.length * 2);
    const [sent, done, unknown] = [new Float64Array(capacity), new Float64Array(capacity), new Uint8Array(capacity)];
    for (let k = 0; k < this.size; k++) {
      const i = this.at(k);
      [sent[k], done[k], unknown[k]] = [this.sent[i]!, this.done[i]!, this.unknown[i]!];
    }
    [this.sent, this.done, this.unknown, this.start] = [sent, done, unknown, 0];
  }

  add(sentAtMs: number, doneAtMs: number, unknown: boolean, keepFromMs: number): void {
    while (this.size > 0 && this.sent[this.start]! < keepFromMs)
      [this.start, this.size] = [(this.start + 1) % this.sent.length, this.size - 1];
    if (this.size === this.sent.length && this.size < this.cap) this.grow();
    if (this.size === this.sent.length) {
      if (sentAtMs < this.sent[this.start]!) return; // older than everything kept
      [this.start, this.size] = [(this.start + 1) % this.sent.length, this.size - 1];
    }
    // Completions arrive roughly in send order: shift the few newer entries up by one.
    let k = this.size;
    while (k > 0 && this.sent[this.at(k - 1)]! > sentAtMs) {
      const [from, to] = [this.at(k - 1), this.at(k)];
      [this.sent[to], this.done[to], this.unknown[to]] = [this.sent[from]!, this.done[from]!, this.unknown[from]!];
      k--;
    }
    const i = this.at(k);
    [this.sent[i], this.done[i], this.unknown[i]] = [sentAtMs, doneAtMs, unknown ? 1 : 0];
    this.size++;
  }

  /** Admissions (of known fate) sent at or after `sentFromMs` that completed after `afterMs`. */
  completedAfter(afterMs: number, sentFromMs: number): number {
    let n = 0;
    for (let k = 0; k < this.size; k++) {
      const i = this.at(k);
      if (this.unknown[i] === 0 && this.sent[i]! >= sentFromMs && this.done[i]! > afterMs) n++;
    }
    return n;
  }

  /** Count the admissions sent before `beforeMs` (the readmission) that the windows of resets in (fromMs, toMs] reach. */
  count(
    beforeMs: number,
    resetFromMs: number,
    resetToMs: number,
    afterRefusalFromMs: number,
    windowMs: number,
    limit: number,
  ): { min: number; max: number; maxAfterRefusal: number; withinLimitFromMs: number | null } {
    let min = 0;
    let max = 0;
    let maxAfterRefusal = 0;
    let admittedSeen = 0;
    let withinLimitFromMs: number | null = null;
    for (let k = this.size - 1; k >= 0; k--) {
      const i = this.at(k);
      const sent = this.sent[i]!;
      if (sent >= beforeMs) continue;
      const done = this.done[i]!;
      // Decided somewhere in [sent, done]: inside [reset − W, reset) surely only if that holds for every reset in range.
      if (done >= resetFromMs - windowMs && sent < resetToMs) max++;
      if (done >= afterRefusalFromMs - windowMs && sent < resetToMs) maxAfterRefusal++;
      if (this.unknown[i] === 1) continue;
      if (sent >= resetToMs - windowMs && done < resetFromMs) min++;
      admittedSeen++;
      // The (limit + 1)-th newest admission is outside only for resets after its send + W.
      if (admittedSeen === limit + 1) withinLimitFromMs = Math.max(resetFromMs, sent + windowMs);
      if (done < resetFromMs - windowMs - LATE_SLACK_MS) break;
    }
    const ambiguous = min <= limit && maxAfterRefusal > limit;
    return {
      min,
      max,
      maxAfterRefusal,
      withinLimitFromMs:
        ambiguous && withinLimitFromMs !== null && withinLimitFromMs < resetToMs ? withinLimitFromMs : null,
    };
  }
}

interface Streak {
  firstSentMs: number;
  firstDoneMs: number;
  lastSentMs: number;
  lastDoneMs: number;
  lastRetryAfterS: number;
  firstRetryAfterS: number;
  refusals: number;
  /** Intersection of the refusals' ceil-rounded reset ranges; every refusal had a Retry-After of 1 s or more. */
  ceilFromMs: number;
  ceilToMs: number;
  allHadRetryAfter: boolean;
  /** The earliest moment a refusal of the streak said the client may retry (receipt + Retry-After). */
  retryAtMs: number;
  refusedAfterRetryAt: number;
  /**
   * Admitted since the last readmission and completed before the streak's first refusal was sent:
   * surely decided before it. One still in flight then may have reached the server after the reset.
   */
  sinceReset: number;
}

/**
 * One client's announced windows, fed with its samples in completion order: refusals extend the
 * open streak, the first admission sent after it closes the streak (the client was admitted at
 * or after the reset) and yields one reading.
 */
export class AnnouncedWindows {
  private readonly recent: RecentAdmissions;
  private streak: Streak | null = null;
  private readonly readings: WindowReading[] = [];
  /** Readings past the cap that were not kept. */
  dropped = 0;
  private sinceReset = 0;
  private sinceResetFirstSentMs = Infinity;
  /** Send time of the admission that closed the last streak: earlier refusals belong to windows already read. */
  private lastClosedAtSentMs = -Infinity;
  private lastClosedBeforeMs = -Infinity;
  /** Send time of the last refusal of the last streak read. */
  private lastRefusalSentMs = -Infinity;
  private newestSentMs = -Infinity;
  /** Send time of the client's first request of the run: windows that began before it may hold requests the run never saw. */
  private firstSentMs = Infinity;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {
    this.recent = new RecentAdmissions(Math.min(2 * limit + 2, 8192));
  }

  /** A request that passed the limiter (`unknown`: no answer; the server may have counted it). */
  admitted(sentAtMs: number, doneAtMs: number, unknown: boolean): void {
    this.newestSentMs = Math.max(this.newestSentMs, sentAtMs);
    this.firstSentMs = Math.min(this.firstSentMs, sentAtMs);
    // Sent after the last refusal came back: decided after it, so at or after the reset. One sent
    // while a refusal was in flight may have been decided before it: it counts inside the window.
    const s = this.streak;
    if (!unknown && s !== null && sentAtMs >= s.lastDoneMs) this.close(doneAtMs, sentAtMs);
    if (!unknown && sentAtMs < this.lastClosedAtSentMs) this.amendLast(sentAtMs, doneAtMs);
    if (!unknown && sentAtMs >= this.lastClosedAtSentMs) {
      this.sinceReset++;
      this.sinceResetFirstSentMs = Math.min(this.sinceResetFirstSentMs, sentAtMs);
    }
    this.recent.add(sentAtMs, doneAtMs, unknown, this.newestSentMs - this.windowMs - 2 * ROUNDING_MS - LATE_SLACK_MS);
  }

  /** A 429; `retryAfterS` < 0 when it had no usable Retry-After. */
  refused(sentAtMs: number, doneAtMs: number, retryAfterS: number): void {
    this.newestSentMs = Math.max(this.newestSentMs, sentAtMs);
    this.firstSentMs = Math.min(this.firstSentMs, sentAtMs);
    if (sentAtMs < this.lastClosedAtSentMs) return; // a late answer from a window already read
    const hasRa = retryAfterS >= 0;
    // Rounded up, a refusal's Retry-After is at least 1 s (its window has not reset yet): a 0 can
    // only be rounded down, and names no ceil-rounded reset (the reading anchors on the last refusal).
    const namesCeilReset = retryAfterS >= 1;
    const fromMs = namesCeilReset ? sentAtMs + (retryAfterS - 1) * ROUNDING_MS : -Infinity;
    const toMs = namesCeilReset ? doneAtMs + retryAfterS * ROUNDING_MS : Infinity;
    const s = this.streak;
    if (s === null) {
      this.streak = {
        firstSentMs: sentAtMs,
        firstDoneMs: doneAtMs,
        lastSentMs: sentAtMs,
        lastDoneMs: doneAtMs,
        firstRetryAfterS: retryAfterS,
        lastRetryAfterS: retryAfterS,
        refusals: 1,
        ceilFromMs: fromMs,
        ceilToMs: toMs,
        allHadRetryAfter: namesCeilReset,
        retryAtMs: hasRa ? doneAtMs + retryAfterS * ROUNDING_MS : Infinity,
        refusedAfterRetryAt: 0,
        sinceReset: this.sinceReset - this.recent.completedAfter(sentAtMs, this.lastClosedAtSentMs),
      };
      return;
    }
    s.refusals++;
    if (sentAtMs >= s.retryAtMs) s.refusedAfterRetryAt++;
    if (hasRa) s.retryAtMs = Math.min(s.retryAtMs, doneAtMs + retryAfterS * ROUNDING_MS);
    if (sentAtMs < s.firstSentMs)
      [s.firstSentMs, s.firstDoneMs, s.firstRetryAfterS] = [sentAtMs, doneAtMs, retryAfterS];
    if (sentAtMs > s.lastSentMs) [s.lastSentMs, s.lastDoneMs, s.lastRetryAfterS] = [sentAtMs, doneAtMs, retryAfterS];
    s.ceilFromMs = Math.max(s.ceilFromMs, fromMs);
    s.ceilToMs = Math.min(s.ceilToMs, toMs);
    s.allHadRetryAfter &&= namesCeilReset;
  }

  /** The readings so far, the open streak's included as it stands (the run may end before a readmission). */
  snapshot(): WindowReading[] {
    const open = this.streak === null ? null : this.readingOf(this.streak, null, Infinity);
    return open === null || this.readings.length >= MAX_WINDOW_READINGS ? [...this.readings] : [...this.readings, open];
  }

  private close(readmittedDoneMs: number, readmittedSentMs: number): void {
    const s = this.streak!;
    this.streak = null;
    this.keep(this.readingOf(s, readmittedDoneMs, readmittedSentMs));
    this.lastClosedAtSentMs = readmittedSentMs;
    this.lastClosedBeforeMs = s.firstSentMs;
    this.lastRefusalSentMs = s.lastSentMs;
    this.sinceReset = 0;
    this.sinceResetFirstSentMs = Infinity;
  }

  private readingOf(s: Streak, readmittedDoneMs: number | null, readmittedSentMs: number): WindowReading {
    const ra = s.lastRetryAfterS;
    // Whatever the Retry-After says, the reset came after the last refusal and by the readmission.
    const fromMs = s.lastSentMs;
    const toMs = readmittedDoneMs ?? s.lastDoneMs + (ra >= 0 ? (ra + 1) * ROUNDING_MS : this.windowMs);
    let range: [number, number] = [fromMs, toMs];
    let anchoredOnLast = false;
    if (s.allHadRetryAfter && Math.max(fromMs, s.ceilFromMs) <= Math.min(toMs, s.ceilToMs)) {
      range = [Math.max(fromMs, s.ceilFromMs), Math.min(toMs, s.ceilToMs)];
    } else if (ra >= 0) {
      // No common ceil-rounded reset: refused requests moved it, or it was rounded down. The last refusal rules, either rounding.
      anchoredOnLast = true;
      const last: [number, number] = [
        Math.max(fromMs, s.lastSentMs + (ra - 1) * ROUNDING_MS),
        Math.min(toMs, s.lastDoneMs + (ra + 1) * ROUNDING_MS),
      ];
      if (last[0] <= last[1]) range = last;
    }
    // A window starting after the previous streak's last refusal: resets later than it by a window.
    const afterRefusalFromMs = Math.min(range[1], Math.max(range[0], this.lastRefusalSentMs + this.windowMs));
    const counts = this.recent.count(
      readmittedSentMs,
      range[0],
      range[1],
      afterRefusalFromMs,
      this.windowMs,
      this.limit,
    );
    return {
      refusedAtMs: s.firstSentMs,
      refusals: s.refusals,
      retryAfterS: s.firstRetryAfterS >= 0 ? s.firstRetryAfterS : null,
      resetFromMs: range[0],
      resetToMs: range[1],
      admittedMin: counts.min,
      admittedMax: counts.max,
      admittedMaxAfterRefusal: counts.maxAfterRefusal,
      withinLimitFromMs: counts.withinLimitFromMs,
      sinceReset: s.sinceReset,
      sinceResetSpanMs: Number.isFinite(this.sinceResetFirstSentMs) ? s.firstDoneMs - this.sinceResetFirstSentMs : 0,
      anchoredOnLast,
      open: readmittedDoneMs === null,
      refusedAfterAnnouncedReset: s.refusedAfterRetryAt,
      readmittedAfterAnnouncedReset: readmittedDoneMs !== null && readmittedSentMs >= s.retryAtMs,
      mayBeginBeforeRun: range[0] - this.windowMs < this.firstSentMs,
      sinceFirstRequest: this.lastClosedAtSentMs === -Infinity,
    };
  }

  private keep(reading: WindowReading): void {
    if (this.readings.length < MAX_WINDOW_READINGS) {
      this.readings.push(reading);
      return;
    }
    const kind = readWindow(reading, this.limit, this.windowMs);
    if (
      (kind === 'over' || kind === 'early') &&
      this.readings.length < MAX_WINDOW_READINGS + MAX_FAILING_WINDOW_READINGS_AFTER
    )
      this.readings.push(reading);
    else this.dropped++;
  }

  /** An admission sent before the last read window's refusal arrived after it was read: count it in, conservatively. */
  private amendLast(sentAtMs: number, doneAtMs: number): void {
    const last = this.readings.at(-1);
    if (last === undefined || last.refusedAtMs !== this.lastClosedBeforeMs) return;
    const min = last.admittedMin + (sentAtMs >= last.resetToMs - this.windowMs ? 1 : 0);
    const max = last.admittedMax + (doneAtMs >= last.resetFromMs - this.windowMs ? 1 : 0);
    const maxAfterRefusal = last.admittedMaxAfterRefusal + (doneAtMs >= last.resetFromMs - this.windowMs ? 1 : 0);
    this.readings[this.readings.length - 1] = {
      ...last,
      admittedMin: min,
      admittedMax: max,
      admittedMaxAfterRefusal: maxAfterRefusal,
      withinLimitFromMs: null,
    };
  }
}
