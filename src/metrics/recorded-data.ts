/**
 * RecordedData: everything a recorder holds as a plain JSON-able record, and the record of
 * a run that sent no load.
 */
import type { TimelineRow } from '../contract/result-schema.ts';
import { createLatencyHistogram, encodeHistogram } from './hdr.ts';
import type { ExemplarData } from './exemplars.ts';
import type { LedgerData } from './ledger-data.ts';
import type { RecentError } from '../contract/live-snapshot.ts';

/** Latency and service time (µs) as HdrHistogram V2 compressed base64. */
export interface EncodedPair {
  readonly latency: string;
  readonly serviceTime: string;
}

/** One slice of the traffic: its histograms and its requests by outcome key. */
export interface DimensionData extends EncodedPair {
  readonly outcomes: Readonly<Record<string, number>>;
}

/** A threshold selection's data: its figures, and its schedule lag (encoded) when it had open-model requests. */
export type SelectionData = DimensionData & { readonly scheduleLag?: string };

/**
 * Everything a recorder holds, as a plain JSON-able record: the input of the result file builder,
 * and what a worker thread ships to the main thread. Dimensions are keyed by name, so parts
 * recorded with different dimension lists still merge (mergeRecordedData) exactly. Per-client
 * histograms are compact (1 significant digit); all others 3 significant digits.
 */
export interface RecordedData {
  readonly format: 'rpcload/recorded@1';
  /** Latest completion seen (API or token request), ms since the run's origin; 0 when none. */
  readonly lastAtMs: number;
  readonly overall: DimensionData;
  /** Schedule lag (µs) of open-model requests; an empty histogram when there were none. */
  readonly scheduleLag: string;
  /** The same per phase, for the phases that had open-model requests. */
  readonly scheduleLagByPhase: Readonly<Record<string, string>>;
  /** Only names that saw traffic. */
  readonly byMethod: Readonly<Record<string, DimensionData>>;
  readonly byPhase: Readonly<Record<string, DimensionData>>;
  readonly byClient: Readonly<Record<string, DimensionData>>;
  /** Per replica (base URL) the load was spread over; absent without replicas. */
  readonly byReplica?: Readonly<Record<string, DimensionData>>;
  /** Per workload, and each one's schedule lag when it had open-model requests; absent in data recorded before workloads. */
  readonly byWorkload?: Readonly<Record<string, DimensionData>>;
  readonly scheduleLagByWorkload?: Readonly<Record<string, string>>;
  /** Per workload, the latency of its successes (its goodput is read off it). */
  readonly successLatencyByWorkload?: Readonly<Record<string, string>>;
  /** Per step tag ("key:value"); absent without tags. */
  readonly byTag?: Readonly<Record<string, DimensionData>>;
  /** Per threshold selection (its canonical selector text), with its schedule lag when it had open-model requests. */
  readonly bySelector?: Readonly<Record<string, SelectionData>>;
  readonly byOutcome: Readonly<Record<string, EncodedPair>>;
  readonly tokens: { readonly latency: string; readonly outcomes: Readonly<Record<string, number>> };
  /** Arrivals not sent, by reason. */
  readonly skipped: Readonly<Record<string, number>>;
  /** The same by workload, for the skips the driver attributes to one (absent in data recorded before workloads). */
  readonly skippedByWorkload?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Dense per-second rows from t = 0 to the latest second with a completion. */
  readonly timeline: readonly TimelineRow[];
  readonly recentErrors: readonly RecentError[];
  /** Null when the run had no rate-limit contract. */
  readonly ledger: LedgerData | null;
  /**
   * What the driver noticed about the server once (an absurd Retry-After, tokens that expire too
   * fast), each said once however often it happened; the result file lists them as warnings.
   * Absent in data recorded before notices existed.
   */
  readonly notices?: readonly string[];
  /**
   * Connections the load opened, by the protocol each negotiated (`h2`, `http/1.1`). Absent in
   * data recorded before connections were counted.
   */
  readonly connections?: Readonly<Record<string, number>>;
  /**
   * Requests sent once more on a new connection after the one they were written to turned out
   * closed by the server. Absent in data recorded before they were counted.
   */
  readonly staleConnectionRetries?: number;
  /** Exemplars by method (exemplars.ts); absent in data recorded before exemplars existed. */
  readonly exemplars?: Readonly<Record<string, readonly ExemplarData[]>>;
}

let emptyEncoding: string | undefined;

/** The data of a run that sent no load (e.g. `verify`): valid input for buildRunResult. */
export function emptyRecordedData(): RecordedData {
  const empty = (emptyEncoding ??= encodeHistogram(createLatencyHistogram()));
  return {
    format: 'rpcload/recorded@1',
    lastAtMs: 0,
    overall: { latency: empty, serviceTime: empty, outcomes: {} },
    scheduleLag: empty,
    scheduleLagByPhase: {},
    byMethod: {},
    byPhase: {},
    byClient: {},
    byOutcome: {},
    tokens: { latency: empty, outcomes: {} },
    skipped: {},
    timeline: [],
    recentErrors: [],
    ledger: null,
  };
}

/** The same data with every histogram encoding passed through `map` (e.g. to fill in deferred ones). */
export function mapEncodings(data: RecordedData, map: (encoded: string) => string): RecordedData {
  const pair = <T extends EncodedPair>(p: T): T => ({ ...p, latency: map(p.latency), serviceTime: map(p.serviceTime) });
  const each = <T>(record: Readonly<Record<string, T>>, f: (value: T) => T): Record<string, T> =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
  return {
    ...data,
    overall: pair(data.overall),
    scheduleLag: map(data.scheduleLag),
    scheduleLagByPhase: each(data.scheduleLagByPhase, map),
    byMethod: each(data.byMethod, pair),
    byPhase: each(data.byPhase, pair),
    byClient: each(data.byClient, pair),
    ...(data.byReplica === undefined ? {} : { byReplica: each(data.byReplica, pair) }),
    ...(data.byWorkload === undefined ? {} : { byWorkload: each(data.byWorkload, pair) }),
    ...(data.scheduleLagByWorkload === undefined
      ? {}
      : { scheduleLagByWorkload: each(data.scheduleLagByWorkload, map) }),
    ...(data.successLatencyByWorkload === undefined
      ? {}
      : { successLatencyByWorkload: each(data.successLatencyByWorkload, map) }),
    ...(data.byTag === undefined ? {} : { byTag: each(data.byTag, pair) }),
    ...(data.bySelector === undefined
      ? {}
      : {
          bySelector: each(data.bySelector, (d) => ({
            ...pair(d),
            ...(d.scheduleLag === undefined ? {} : { scheduleLag: map(d.scheduleLag) }),
          })),
        }),
    byOutcome: each(data.byOutcome, pair),
    tokens: { ...data.tokens, latency: map(data.tokens.latency) },
  };
}
