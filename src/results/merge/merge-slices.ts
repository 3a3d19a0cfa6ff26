/**
 * The slices of shards a run keeps beside its methods and phases — per workload, per step tag and
 * per threshold selection — merged exactly: counts added, and every percentile read off the HDR
 * sum of the shards' histograms (`histograms.byWorkload` / `byTag` / `bySelector`), schedule lag
 * included where a slice had open-model requests. A slice some shards lack (a workload none of
 * their clients ran, a file written before workloads) is merged from the shards that have it.
 */
import { RpcloadError } from '../../errors.ts';
import { addHistograms, encodeHistogram, percentilesMs, type Histogram } from '../../metrics/hdr.ts';
import { decodeHistogramAt } from '../../result-file/histograms.ts';
import type { PhaseStats, RunResult, Stats } from '../../contract/result-schema.ts';
import { mergeStats } from './merge-stats.ts';
import type { Shard } from './shard-set.ts';

export type SliceKey = 'byWorkload' | 'byTag' | 'bySelector';

/** One slice's merged histograms. */
export interface SliceHistograms {
  readonly latency: Histogram;
  readonly serviceTime: Histogram;
  /** Absent when no shard recorded a schedule lag for it (closed model, tags). */
  readonly scheduleLag?: Histogram;
}

/** One slice of one shard: its stats and its histograms, decoded. */
export interface SlicePart<S extends Stats> {
  readonly shard: Shard;
  readonly stats: S;
}

/** A slice merged: its parts (the shards that have it) and the sum of their histograms. */
export interface MergedSlice<S extends Stats> {
  readonly parts: readonly SlicePart<S>[];
  readonly histograms: SliceHistograms;
  /** Some shard carried histograms for it (a run's file leaves them out of a workload without traffic). */
  readonly encoded: boolean;
}

type SliceStats<K extends SliceKey> = NonNullable<RunResult[K]>[string];
type EncodedSlice = { readonly latency: string; readonly serviceTime: string; readonly scheduleLag?: string };

const INEXACT = 'cannot merge exactly';

interface Found<S extends Stats> {
  readonly parts: SlicePart<S>[];
  readonly latency: Histogram[];
  readonly serviceTime: Histogram[];
  readonly lag: Histogram[];
}

/** A slice's histograms in one shard, decoded into `into`; figures without a histogram are refused (exit 2). */
function addShardSlice(into: Found<Stats>, where: string, stats: Stats, encoded: EncodedSlice | undefined): void {
  const what = where.replace(/^.*: histograms\./, '');
  if (encoded === undefined) {
    if (stats.requests === 0) return;
    throw new RpcloadError('bad_result', `${where}: expected the histograms behind ${what}, found none: ${INEXACT}`);
  }
  into.latency.push(decodeHistogramAt(encoded.latency, `${where}.latency`));
  into.serviceTime.push(decodeHistogramAt(encoded.serviceTime, `${where}.serviceTime`));
  if (encoded.scheduleLag !== undefined) into.lag.push(decodeHistogramAt(encoded.scheduleLag, `${where}.scheduleLag`));
  else if ((stats as PhaseStats).scheduleLagMs !== undefined)
    throw new RpcloadError('bad_result', `${where}.scheduleLag: expected the histogram behind its scheduleLagMs, found none: ${INEXACT}`);
}

/**
 * Every slice of `key` any shard lists, with its parts and summed histograms. A slice with requests
 * but no histogram in some shard cannot be merged exactly: missing data, a user error (exit 2).
 */
export function mergeSlices<K extends SliceKey>(shards: readonly Shard[], key: K): Map<string, MergedSlice<SliceStats<K>>> {
  const found = new Map<string, Found<SliceStats<K>>>();
  for (const shard of shards) {
    const record = (shard.result[key] ?? {}) as Readonly<Record<string, SliceStats<K>>>;
    const encoded: Readonly<Record<string, EncodedSlice>> = shard.result.histograms[key] ?? {};
    for (const [name, stats] of Object.entries(record)) {
      const entry = found.get(name) ?? { parts: [], latency: [], serviceTime: [], lag: [] };
      entry.parts.push({ shard, stats });
      found.set(name, entry);
      addShardSlice(entry, `${shard.label}: histograms.${key}[${JSON.stringify(name)}]`, stats, encoded[name]);
    }
  }
  const merged = [...found].map(([name, entry]): [string, MergedSlice<SliceStats<K>>] => {
    const histograms = {
      latency: addHistograms(entry.latency),
      serviceTime: addHistograms(entry.serviceTime),
      ...(entry.lag.length > 0 ? { scheduleLag: addHistograms(entry.lag) } : {}),
    };
    return [name, { parts: entry.parts, histograms, encoded: entry.latency.length > 0 }];
  });
  return new Map(merged);
}

/** A merged slice's stats over `durationS`, with its schedule lag when it had one (PhaseStats). */
export function sliceStats(slice: MergedSlice<Stats>, durationS: number): PhaseStats {
  const stats = mergeStats(
    slice.parts.map((p) => p.stats),
    slice.histograms,
    durationS,
  );
  const lag = slice.histograms.scheduleLag;
  return lag !== undefined && lag.totalCount > 0 ? { ...stats, scheduleLagMs: percentilesMs(lag) } : stats;
}

/** The per-tag stats (no schedule lag) or per-selection stats of merged slices. */
export function sliceRecord(
  slices: ReadonlyMap<string, MergedSlice<Stats>>,
  durationS: number,
  withLag: boolean,
): Record<string, PhaseStats> {
  const record: Record<string, PhaseStats> = {};
  for (const [name, slice] of slices) {
    const { scheduleLagMs, ...stats } = sliceStats(slice, durationS);
    record[name] = withLag && scheduleLagMs !== undefined ? { ...stats, scheduleLagMs } : stats;
  }
  return record;
}

/** The merged slices' histograms, as `histograms.byWorkload` / `byTag` / `bySelector` hold them. */
export function encodeSlices(slices: ReadonlyMap<string, MergedSlice<Stats>>, withLag: boolean): Record<string, EncodedSlice> {
  const out: Record<string, EncodedSlice> = {};
  for (const [name, { histograms, encoded }] of slices) {
    if (!encoded) continue;
    const lag = histograms.scheduleLag;
    out[name] = {
      latency: encodeHistogram(histograms.latency),
      serviceTime: encodeHistogram(histograms.serviceTime),
      ...(withLag && lag !== undefined && lag.totalCount > 0 ? { scheduleLag: encodeHistogram(lag) } : {}),
    };
  }
  return out;
}
