/**
 * Outcome keys mapped to dense counter indices, with the number of distinct keys capped so that a
 * server inventing error codes cannot grow the counters without bound.
 */
import { outcomeClass } from '../api/outcome.ts';
import { sanitizeText } from '../util/sanitize.ts';

/**
 * Distinct outcome keys kept apart, `error:other` included. A hostile server can invent a new
 * error code per response; beyond this many keys further new error keys are counted as
 * `error:other`, so counters and per-outcome histograms stay bounded.
 */
export const MAX_OUTCOME_KEYS = 64;
export const OUTCOME_OTHER = 'error:other';
/** Slots a table can ever hand out: the capped keys plus the never-folded non-error keys. */
export const OUTCOME_SLOTS = MAX_OUTCOME_KEYS + 3;
const RAW_MEMO_CAP = 4 * MAX_OUTCOME_KEYS;

/**
 * Maps outcome keys to small dense indices for counter arrays. Keys that are not errors
 * (`success`, `error:rate_limit_exceeded`, `http:429`) always get their own slot: folding them
 * would turn a success into an error. Keys are sanitized once, when first seen; the memo of raw
 * spellings is capped, so the table is bounded whatever the server sends.
 */
export class OutcomeTable {
  /** Sanitized key of each index. */
  readonly keys: string[] = [];
  private readonly indexByRaw = new Map<string, number>();
  private readonly indexByKey = new Map<string, number>();

  indexOf(outcome: string): number {
    const known = this.indexByRaw.get(outcome);
    if (known !== undefined) return known;
    const key = sanitizeText(outcome, 100) || OUTCOME_OTHER;
    let index = this.indexByKey.get(key);
    if (index === undefined) {
      if (this.keys.length >= MAX_OUTCOME_KEYS - 1 && outcomeClass(key) === 'error' && key !== OUTCOME_OTHER)
        return this.otherIndex();
      index = this.add(key);
    }
    // Raw spellings that sanitize to one key (control characters, over-long codes) are endless.
    if (this.indexByRaw.size < RAW_MEMO_CAP) this.indexByRaw.set(outcome, index);
    return index;
  }

  /** The key an outcome is counted under (after sanitizing and folding). */
  keyOf(outcome: string): string {
    return this.keys[this.indexOf(outcome)]!;
  }

  private otherIndex(): number {
    return this.indexByKey.get(OUTCOME_OTHER) ?? this.add(OUTCOME_OTHER);
  }

  private add(key: string): number {
    const index = this.keys.length;
    this.keys.push(key);
    this.indexByKey.set(key, index);
    return index;
  }
}

/** `{key: count}` of the non-zero counters, in first-seen order. */
export function countsRecord(keys: readonly string[], counts: ArrayLike<number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (let i = 0; i < keys.length; i++) {
    const count = counts[i] ?? 0;
    if (count > 0) out[keys[i]!] = count;
  }
  return out;
}
