/**
 * Merging the recorded data of several recorders that share one run's time origin (worker threads,
 * or shards started together) into one.
 */
import type { TimelineRow } from '../contract/result-schema.ts';
import { mergeExemplars } from './exemplars.ts';
import {
  addHistograms,
  createCompactHistogram,
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  type Histogram,
} from './hdr.ts';
import { mergeLedgerData } from './ledger-merge.ts';
import { OutcomeTable } from './outcome-table.ts';
import { mergeRecentErrors } from './recent-errors.ts';
import { emptyRecordedData, type DimensionData, type EncodedPair, type RecordedData } from './recorded-data.ts';
import { emptyTimelineRow } from './timeline.ts';

type Fold = (key: string) => string;

/** Sum encoded histograms; a single part is passed through untouched (exact, and no re-encoding). */
function addEncoded(encoded: readonly string[], create: () => Histogram): string {
  if (encoded.length === 1) return encoded[0]!;
  return encodeHistogram(addHistograms(encoded.map(decodeHistogram), create));
}

function addCounts(records: readonly Readonly<Record<string, number>>[], fold: Fold): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, count] of records.flatMap((r) => Object.entries(r))) out[fold(key)] = (out[fold(key)] ?? 0) + count;
  return out;
}

function groupByName<T>(records: readonly Readonly<Record<string, T>>[], rename: Fold = (k) => k): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const [name, value] of records.flatMap((r) => Object.entries(r))) {
    const key = rename(name);
    groups.set(key, [...(groups.get(key) ?? []), value]);
  }
  return groups;
}

function mergePairs(pairs: readonly EncodedPair[], create: () => Histogram): EncodedPair {
  return {
    latency: addEncoded(
      pairs.map((p) => p.latency),
      create,
    ),
    serviceTime: addEncoded(
      pairs.map((p) => p.serviceTime),
      create,
    ),
  };
}

function mergeDimensions(
  records: readonly Readonly<Record<string, DimensionData>>[],
  fold: Fold,
  create: () => Histogram,
): Record<string, DimensionData> {
  const out: Record<string, DimensionData> = {};
  for (const [name, list] of groupByName(records))
    out[name] = {
      ...mergePairs(list, create),
      outcomes: addCounts(
        list.map((d) => d.outcomes),
        fold,
      ),
    };
  return out;
}

function mergeEncodedByName(records: readonly Readonly<Record<string, string>>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, list] of groupByName(records)) out[name] = addEncoded(list, createLatencyHistogram);
  return out;
}

/**
 * Rows aligned by t, counts summed. A second with traffic in one part only keeps that part's
 * p50/p99 exactly; where several parts completed requests in the same second, the largest p50
 * and p99 are kept — an upper bound of the true value (the rows carry no histogram to add).
 */
function mergeTimelines(timelines: readonly (readonly TimelineRow[])[]): TimelineRow[] {
  const length = Math.max(0, ...timelines.map((rows) => rows.length));
  return Array.from({ length }, (_, t) => {
    const rows = timelines
      .map((tl) => tl[t])
      .filter((row): row is TimelineRow => row !== undefined && row.requests > 0);
    const row = { ...emptyTimelineRow(t) };
    for (const r of rows) {
      row.requests += r.requests;
      row.success += r.success;
      row.rateLimited += r.rateLimited;
      row.errors += r.errors;
      row.p50 = Math.max(row.p50, r.p50);
      row.p99 = Math.max(row.p99, r.p99);
    }
    return row;
  });
}

/**
 * Add several recorders' data exactly: histograms by HDR addition, counters summed, timelines
 * aligned by second, ledgers combined per client. All parts must share the run's time origin
 * (worker threads of one run, or shards started together). Outcome keys past the cap of distinct
 * keys are folded into `error:other` as a single recorder would have; an empty list gives
 * emptyRecordedData().
 */
export function mergeRecordedData(parts: readonly RecordedData[]): RecordedData {
  if (parts.length === 0) return emptyRecordedData();
  if (parts.length === 1) return parts[0]!;
  // Every dimension's keys are among the overall keys: registering those first folds consistently.
  const table = new OutcomeTable();
  for (const key of parts.flatMap((p) => Object.keys(p.overall.outcomes))) table.indexOf(key);
  const fold: Fold = (key) => table.keyOf(key);
  const tokenTable = new OutcomeTable();
  const tokenFold: Fold = (key) => tokenTable.keyOf(key);
  const byOutcome: Record<string, EncodedPair> = {};
  for (const [key, list] of groupByName(
    parts.map((p) => p.byOutcome),
    fold,
  ))
    byOutcome[key] = mergePairs(list, createLatencyHistogram);
  const skipped: Record<string, number> = addCounts(
    parts.map((p) => p.skipped),
    (k) => k,
  );
  return {
    format: 'rpcload/recorded@1',
    lastAtMs: Math.max(...parts.map((p) => p.lastAtMs)),
    overall: {
      ...mergePairs(
        parts.map((p) => p.overall),
        createLatencyHistogram,
      ),
      outcomes: addCounts(
        parts.map((p) => p.overall.outcomes),
        fold,
      ),
    },
    scheduleLag: addEncoded(
      parts.map((p) => p.scheduleLag),
      createLatencyHistogram,
    ),
    scheduleLagByPhase: mergeEncodedByName(parts.map((p) => p.scheduleLagByPhase)),
    byMethod: mergeDimensions(
      parts.map((p) => p.byMethod),
      fold,
      createLatencyHistogram,
    ),
    byPhase: mergeDimensions(
      parts.map((p) => p.byPhase),
      fold,
      createLatencyHistogram,
    ),
    byClient: mergeDimensions(
      parts.map((p) => p.byClient),
      fold,
      createCompactHistogram,
    ),
    ...(parts.some((p) => p.byReplica !== undefined)
      ? {
          byReplica: mergeDimensions(
            parts.map((p) => p.byReplica ?? {}),
            fold,
            createLatencyHistogram,
          ),
        }
      : {}),
    ...optionalMerges(parts, fold),
    byOutcome,
    tokens: {
      latency: addEncoded(
        parts.map((p) => p.tokens.latency),
        createLatencyHistogram,
      ),
      outcomes: addCounts(
        parts.map((p) => p.tokens.outcomes),
        tokenFold,
      ),
    },
    skipped,
    timeline: mergeTimelines(parts.map((p) => p.timeline)),
    recentErrors: mergeRecentErrors(parts.map((p) => p.recentErrors)),
    ledger: mergeLedgerData(parts.map((p) => p.ledger)),
    notices: [...new Set(parts.flatMap((p) => p.notices ?? []))],
    connections: addCounts(
      parts.map((p) => p.connections ?? {}),
      (k) => k,
    ),
    exemplars: mergeExemplars(parts.map((p) => p.exemplars)),
    staleConnectionRetries: parts.reduce((sum, p) => sum + (p.staleConnectionRetries ?? 0), 0),
  };
}

/** The per-workload, per-tag and per-selection slices, where any part has them. */
function optionalMerges(
  parts: readonly RecordedData[],
  fold: Fold,
): Pick<
  RecordedData,
  'byWorkload' | 'scheduleLagByWorkload' | 'successLatencyByWorkload' | 'skippedByWorkload' | 'byTag' | 'bySelector'
> {
  const some = (
    key: 'byWorkload' | 'scheduleLagByWorkload' | 'successLatencyByWorkload' | 'byTag' | 'bySelector',
  ): boolean => parts.some((p) => p[key] !== undefined);
  const selections = some('bySelector')
    ? mergeDimensions(
        parts.map((p) => p.bySelector ?? {}),
        fold,
        createLatencyHistogram,
      )
    : null;
  const selectionLag = mergeEncodedByName(
    parts.map((p) =>
      Object.fromEntries(
        Object.entries(p.bySelector ?? {}).flatMap(([key, d]) =>
          d.scheduleLag === undefined ? [] : [[key, d.scheduleLag]],
        ),
      ),
    ),
  );
  return {
    ...(some('byWorkload')
      ? {
          byWorkload: mergeDimensions(
            parts.map((p) => p.byWorkload ?? {}),
            fold,
            createLatencyHistogram,
          ),
        }
      : {}),
    ...(some('scheduleLagByWorkload')
      ? { scheduleLagByWorkload: mergeEncodedByName(parts.map((p) => p.scheduleLagByWorkload ?? {})) }
      : {}),
    ...(some('successLatencyByWorkload')
      ? { successLatencyByWorkload: mergeEncodedByName(parts.map((p) => p.successLatencyByWorkload ?? {})) }
      : {}),
    ...(parts.some((p) => p.skippedByWorkload !== undefined)
      ? {
          skippedByWorkload: Object.fromEntries(
            [...groupByName(parts.map((p) => p.skippedByWorkload ?? {}))].map(([name, list]) => [
              name,
              addCounts(list, (k) => k),
            ]),
          ),
        }
      : {}),
    ...(some('byTag')
      ? {
          byTag: mergeDimensions(
            parts.map((p) => p.byTag ?? {}),
            fold,
            createLatencyHistogram,
          ),
        }
      : {}),
    ...(selections === null
      ? {}
      : {
          bySelector: Object.fromEntries(
            Object.entries(selections).map(([key, d]) => [
              key,
              selectionLag[key] === undefined ? d : { ...d, scheduleLag: selectionLag[key] },
            ]),
          ),
        }),
  };
}
