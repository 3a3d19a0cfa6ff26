/**
 * Stats blocks of shards merged: counters added, percentiles read off merged histograms,
 * phase durations recovered.
 */
import { percentilesMs, type Histogram } from '../../metrics/hdr.ts';
import type { Stats } from '../../contract/result-schema.ts';

/** Counters of several records added key by key (outcomes, skipped reasons, Retry-After values). */
export function sumCounts(records: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const record of records) for (const [key, n] of Object.entries(record)) out[key] = (out[key] ?? 0) + n;
  return out;
}

/**
 * One merged stats block: counts added, percentiles read off the merged histograms (never
 * averaged), rps = requests / the wall-clock seconds the block covers.
 */
export function mergeStats(parts: readonly Stats[], histograms: { latency: Histogram; serviceTime: Histogram }, durationS: number): Stats {
  const requests = parts.reduce((sum, s) => sum + s.requests, 0);
  return {
    requests,
    rps: durationS > 0 ? requests / durationS : 0,
    latencyMs: percentilesMs(histograms.latency),
    serviceTimeMs: percentilesMs(histograms.serviceTime),
    outcomes: sumCounts(parts.map((s) => s.outcomes)),
  };
}

/**
 * How long a phase lasted: each shard's phase stats imply it (requests ÷ rps); shards run at the
 * same time, so the merged phase lasted as long as the longest of them.
 */
export function phaseDurationS(parts: readonly Stats[]): number {
  return Math.max(0, ...parts.filter((s) => s.rps > 0).map((s) => s.requests / s.rps));
}
