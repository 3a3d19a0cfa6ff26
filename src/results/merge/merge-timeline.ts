/**
 * Per-second timelines of shards, aligned by wall-clock second: a shard that started `offsetS`
 * seconds after the earliest one has its row t land on merged second t + offsetS (the offset is
 * rounded to whole seconds, so a row may be placed up to half a second off). Counters add up.
 * Per-second percentiles cannot be merged exactly without per-second histograms, so:
 * - p50 is the request-weighted mean of the shards' p50s (the true median of the union lies
 *   between the smallest and the largest of them);
 * - p99 is the largest of the shards' p99s (an upper bound: at most 1 % of each shard's
 *   requests, hence of their union, are slower than it).
 */
import type { TimelineRow } from '../../contract/result-schema.ts';

export interface TimelinePart {
  readonly offsetS: number;
  readonly rows: readonly TimelineRow[];
}

/** ms with 3 decimals, like every latency in a result file. */
const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

export function mergeTimelines(parts: readonly TimelinePart[]): TimelineRow[] {
  const merged = new Map<number, { requests: number; success: number; rateLimited: number; errors: number; p50Weighted: number; p99: number }>();
  for (const { offsetS, rows } of parts) {
    for (const row of rows) {
      const t = row.t + offsetS;
      const into = merged.get(t) ?? { requests: 0, success: 0, rateLimited: 0, errors: 0, p50Weighted: 0, p99: 0 };
      into.requests += row.requests;
      into.success += row.success;
      into.rateLimited += row.rateLimited;
      into.errors += row.errors;
      into.p50Weighted += row.p50 * row.requests;
      into.p99 = Math.max(into.p99, row.p99);
      merged.set(t, into);
    }
  }
  // Dense from 0 like a recorder's timeline: a second no shard had a row for had no traffic.
  let lastT = -1;
  for (const t of merged.keys()) lastT = Math.max(lastT, t);
  return Array.from({ length: lastT + 1 }, (_, t) => {
    const { requests = 0, success = 0, rateLimited = 0, errors = 0, p50Weighted = 0, p99 = 0 } = merged.get(t) ?? {};
    return { t, requests, success, rateLimited, errors, p50: requests > 0 ? roundMs(p50Weighted / requests) : 0, p99 };
  });
}
