/**
 * The per-second timeline of a run: requests by outcome class and p50/p99 for every second, in
 * memory that grows with the duration only.
 */
import type { OutcomeClass } from '../api/outcome.ts';
import type { TimelineRow } from '../contract/result-schema.ts';
import { createLatencyHistogram, recordUs, usToMs, valuesAtPercentilesUs } from './hdr.ts';

/**
 * Seconds of timeline kept at most (a week). Rows are dense from t = 0, so one absurd completion
 * time (a driver bug, a wall-clock value) must not allocate a row per second since 1970.
 */
export const MAX_TIMELINE_SECONDS = 7 * 86_400;

type MutableRow = { -readonly [K in keyof TimelineRow]: TimelineRow[K] };

/** A zero row for second `t` (gaps in traffic are rows too: a stall shows as zeros). */
export function emptyTimelineRow(t: number): TimelineRow {
  return { t, requests: 0, success: 0, rateLimited: 0, errors: 0, p50: 0, p99: 0 };
}

/**
 * The per-second timeline, t = floor(doneAtMs / 1000). One reusable histogram holds the latencies
 * of the current second; when a completion from a later second arrives, the current row's p50/p99
 * are read off and the histogram is reset, so memory grows with the run's duration (one small row
 * per second), never with its request count. A completion from an already finished second (rare:
 * completions are recorded as they happen) is counted in its row but cannot change its p50/p99.
 */
export class Timeline {
  private readonly rows: MutableRow[] = [];
  private readonly current = createLatencyHistogram();
  private currentT = -1;

  record(doneAtMs: number, latencyUs: number, outcome: OutcomeClass): void {
    const t = Math.floor(doneAtMs / 1000);
    if (!(t >= 0 && t < MAX_TIMELINE_SECONDS)) return;
    if (t > this.currentT) this.rollTo(t);
    const row = this.rows[t]!;
    row.requests++;
    if (outcome === 'success') row.success++;
    else if (outcome === 'rate_limited') row.rateLimited++;
    else row.errors++;
    if (t === this.currentT) recordUs(this.current, latencyUs);
  }

  /** Seconds with a row: 0 … the latest second a completion fell in. */
  get length(): number {
    return this.rows.length;
  }

  /**
   * Copies of the rows from second `fromT` on, the current (possibly partial) second included with
   * its p50/p99 read live, padded with zero rows up to second `untilT` when given.
   */
  rowsFrom(fromT = 0, untilT = -1): TimelineRow[] {
    const out: TimelineRow[] = [];
    for (let t = Math.max(0, fromT); t < this.rows.length; t++) {
      const row = this.rows[t]!;
      out.push(t === this.currentT ? { ...row, ...this.currentPercentiles() } : { ...row });
    }
    for (let t = Math.max(this.rows.length, fromT); t <= untilT; t++) out.push(emptyTimelineRow(t));
    return out;
  }

  /** Requests completed in second t (0 when none or out of range). */
  requestsAt(t: number): number {
    return this.rows[t]?.requests ?? 0;
  }

  private currentPercentiles(): { p50: number; p99: number } {
    const [p50 = 0, p99 = 0] = valuesAtPercentilesUs(this.current, [50, 99]).valuesUs;
    return { p50: usToMs(p50), p99: usToMs(p99) };
  }

  private rollTo(t: number): void {
    if (this.currentT >= 0) Object.assign(this.rows[this.currentT]!, this.currentPercentiles());
    for (let s = this.rows.length; s <= t; s++) this.rows.push(emptyTimelineRow(s));
    this.current.reset();
    this.currentT = t;
  }
}
