/**
 * The distinct recent errors shown in the live error pane: a bounded list per recorder, and lists
 * of several recorders combined.
 */
import type { RecentError } from '../contract/live-snapshot.ts';
import { sanitizeText } from '../util/sanitize.ts';

/** Distinct errors kept for the live error pane (least recently seen ones are dropped first). */
export const MAX_RECENT_ERRORS = 50;

type MutableRecentError = { -readonly [K in keyof RecentError]: RecentError[K] };

const keyOf = (e: Pick<RecentError, 'source' | 'outcome' | 'detail'>): string =>
  `${e.source}\u0000${e.outcome}\u0000${e.detail}`;

/**
 * A bounded, least-recently-seen-evicted list of distinct errors. The Map's insertion order is
 * the recency order: a repeat moves its entry to the end, a new entry beyond the cap evicts the
 * first. Text is sanitized once per new entry, not per failure.
 */
export class RecentErrors {
  private readonly entries = new Map<string, MutableRecentError>();

  record(source: RecentError['source'], outcome: string, detail: string, atMs: number): void {
    const key = keyOf({ source, outcome, detail });
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      entry.count++;
      if (atMs > entry.lastAtMs) entry.lastAtMs = atMs;
      this.entries.delete(key);
      this.entries.set(key, entry);
      return;
    }
    if (this.entries.size >= MAX_RECENT_ERRORS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, {
      source,
      outcome: sanitizeText(outcome, 100),
      detail: sanitizeText(detail),
      count: 1,
      firstAtMs: atMs,
      lastAtMs: atMs,
    });
  }

  get size(): number {
    return this.entries.size;
  }

  /** Copies, most recently seen first. */
  list(): RecentError[] {
    return [...this.entries.values()].reverse().map((e) => ({ ...e }));
  }
}

/** Combine lists from several recorders: same error → counts summed; the most recent ones kept. */
export function mergeRecentErrors(lists: readonly (readonly RecentError[])[]): RecentError[] {
  const byKey = new Map<string, MutableRecentError>();
  for (const e of lists.flat()) {
    const key = keyOf(e);
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, { ...e });
    else {
      seen.count += e.count;
      seen.firstAtMs = Math.min(seen.firstAtMs, e.firstAtMs);
      seen.lastAtMs = Math.max(seen.lastAtMs, e.lastAtMs);
    }
  }
  return [...byKey.values()].sort((a, b) => b.lastAtMs - a.lastAtMs).slice(0, MAX_RECENT_ERRORS);
}
