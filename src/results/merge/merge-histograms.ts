/**
 * Exact histogram merging: HDR addition of the shards' histograms, bucket by bucket. Every
 * percentile of the merged file is read off these sums, so it equals the percentile of the union
 * of the shards' samples. Sums are built with the parts' own precision (per-client histograms
 * stay compact).
 */
import { RpcloadError } from '../../errors.ts';
import { addHistograms, createCompactHistogram, createLatencyHistogram, encodeHistogram, type Histogram } from '../../metrics/hdr.ts';
import { decodeHistogramAt } from '../../result-file/histograms.ts';
import type { Histograms, RunResult } from '../../contract/result-schema.ts';
import type { Shard } from './shard-set.ts';

type Pair = { latency: Histogram; serviceTime: Histogram };
type PairRecordKey = 'byMethod' | 'byPhase' | 'byOutcome' | 'byClient';

/**
 * Sum of an optional histogram (schedule lag, tokens) across shards; undefined when no shard has
 * one. A shard with data (`hasData`) but no histogram cannot be merged exactly (exit 2).
 */
export function sumOptional(shards: readonly Shard[], key: 'scheduleLag' | 'tokens', hasData: (r: RunResult) => boolean): Histogram | undefined {
  const missing = shards.find((s) => s.result.histograms[key] === undefined && hasData(s.result));
  if (missing) throw new RpcloadError('bad_result', `${missing.label}: histograms.${key}: expected the histogram behind its ${key} figures, found none: cannot merge exactly`);
  const present = shards.filter((s) => s.result.histograms[key] !== undefined);
  if (present.length === 0) return undefined;
  return addHistograms(present.map((s) => decodeHistogramAt(s.result.histograms[key]!, `${s.label}: histograms.${key}`)));
}

/**
 * Per-phase schedule lag summed across shards. A shard whose phase reports a lag but carries no
 * histogram for it cannot be merged exactly (exit 2); phases without lag (closed model) have none.
 */
export function sumLagByPhase(shards: readonly Shard[]): Map<string, Histogram> {
  const parts = new Map<string, Histogram[]>();
  for (const { label, result } of shards) {
    for (const [phase, stats] of Object.entries(result.byPhase)) {
      const encoded = result.histograms.scheduleLagByPhase?.[phase];
      const where = `${label}: histograms.scheduleLagByPhase[${JSON.stringify(phase)}]`;
      if (encoded === undefined) {
        if (stats.scheduleLagMs === undefined) continue;
        throw new RpcloadError('bad_result', `${where}: expected the histogram behind byPhase[${JSON.stringify(phase)}].scheduleLagMs, found none: cannot merge exactly`);
      }
      parts.set(phase, [...(parts.get(phase) ?? []), decodeHistogramAt(encoded, where)]);
    }
  }
  return new Map([...parts].map(([phase, list]) => [phase, addHistograms(list)]));
}

export function sumOverall(shards: readonly Shard[], kind: 'latency' | 'serviceTime'): Histogram {
  return addHistograms(shards.map((s) => decodeHistogramAt(s.result.histograms[kind], `${s.label}: histograms.${kind}`)));
}

/**
 * Per-key sums of a histogram record (byMethod, …), for the keys with traffic. A key with
 * requests but no histogram in some shard cannot be merged exactly: that is missing data, a
 * user error (exit 2). A key without requests may have none (a declared method never called).
 */
export function sumRecord(shards: readonly Shard[], record: PairRecordKey): Map<string, Pair> {
  const create = record === 'byClient' ? createCompactHistogram : createLatencyHistogram;
  const parts = new Map<string, { latency: Histogram[]; serviceTime: Histogram[] }>();
  for (const { label, result } of shards) {
    for (const [key, stats] of Object.entries(result[record])) {
      const pair = result.histograms[record][key];
      const where = `${label}: histograms.${record}[${JSON.stringify(key)}]`;
      if (!pair) {
        if (stats.requests === 0) continue;
        throw new RpcloadError('bad_result', `${where}: expected the histograms behind ${record}[${JSON.stringify(key)}], found none: cannot merge exactly`);
      }
      const entry = parts.get(key) ?? { latency: [], serviceTime: [] };
      entry.latency.push(decodeHistogramAt(pair.latency, `${where}.latency`));
      entry.serviceTime.push(decodeHistogramAt(pair.serviceTime, `${where}.serviceTime`));
      parts.set(key, entry);
    }
  }
  return new Map([...parts].map(([key, p]) => [key, { latency: addHistograms(p.latency, create), serviceTime: addHistograms(p.serviceTime, create) }]));
}

const encodePairs = (pairs: ReadonlyMap<string, Pair>) =>
  Object.fromEntries([...pairs].map(([key, p]) => [key, { latency: encodeHistogram(p.latency), serviceTime: encodeHistogram(p.serviceTime) }]));

/** The merged file's `histograms` block. */
export function encodeMergedHistograms(parts: {
  latency: Histogram;
  serviceTime: Histogram;
  scheduleLag: Histogram | undefined;
  scheduleLagByPhase: ReadonlyMap<string, Histogram>;
  tokens: Histogram | undefined;
  records: Readonly<Record<PairRecordKey, ReadonlyMap<string, Pair>>>;
}): Histograms {
  return {
    latency: encodeHistogram(parts.latency),
    serviceTime: encodeHistogram(parts.serviceTime),
    ...(parts.scheduleLag ? { scheduleLag: encodeHistogram(parts.scheduleLag) } : {}),
    ...(parts.scheduleLagByPhase.size > 0 ? { scheduleLagByPhase: Object.fromEntries([...parts.scheduleLagByPhase].map(([phase, h]) => [phase, encodeHistogram(h)])) } : {}),
    ...(parts.tokens ? { tokens: encodeHistogram(parts.tokens) } : {}),
    byMethod: encodePairs(parts.records.byMethod),
    byPhase: encodePairs(parts.records.byPhase),
    byOutcome: encodePairs(parts.records.byOutcome),
    byClient: encodePairs(parts.records.byClient),
  };
}
