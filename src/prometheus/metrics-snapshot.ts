/**
 * The metrics snapshot: what `--metrics-listen` exposes, as one plain JSON-able record read off the
 * recorder when a scrape (or a worker's periodic report) asks — never per request. Counters per
 * (phase, method, outcome), Prometheus-style cumulative bucket counts for latency, service time
 * and schedule lag, token, skip and Retry-After figures, per-client counts and a few gauges.
 * Snapshots of worker threads (and of the steps of a capacity search) add up exactly.
 */
import { valuesAtPercentilesUs, type Histogram } from '../metrics/hdr.ts';
import type { LiveSnapshot } from '../contract/live-snapshot.ts';
import type { RecorderDimensions } from '../metrics/sample.ts';
import type { TracedRequest } from '../metrics/exemplars.ts';

export { DEFAULT_METRICS_BUCKETS_MS } from './metrics-settings.ts';

/** A Prometheus histogram's figures: counts at or below each bound (cumulative), the sum and the count. */
export interface BucketCounts {
  /** One per bound of the snapshot's `boundsMs`, cumulative (the `+Inf` bucket is `count`). */
  readonly cumulative: readonly number[];
  readonly sumSeconds: number;
  readonly count: number;
}

/** Which workload a series is of, and the values of the step tags the user asked for (`--metrics-tag`). */
export interface SeriesScope {
  readonly workload: string;
  /** One per `MetricsSnapshot.tagKeys` key: the step's value, '' when the step has no such tag. */
  readonly tags: readonly string[];
}

export interface RequestCount extends SeriesScope {
  readonly phase: string;
  readonly method: string;
  readonly outcome: string;
  readonly count: number;
}

/** A histogram bucket's exemplar: the latest request with a trace context whose figure fell in the bucket. */
export interface BucketExemplar {
  readonly traceId: string;
  readonly spanId: string;
  /** The request's latency or service time (seconds, the histogram's unit). */
  readonly valueSeconds: number;
  /** When it completed: epoch seconds (ms precision). */
  readonly timestampS: number;
}

export interface PhaseMethodBuckets extends SeriesScope {
  readonly phase: string;
  readonly method: string;
  readonly buckets: BucketCounts;
  /**
   * One per bound of the snapshot's `boundsMs` plus one for `+Inf`: the bucket's exemplar, null
   * when it has none. Absent when no request of the cell carried a trace context.
   */
  readonly exemplars?: readonly (BucketExemplar | null)[];
}

export interface PhaseBuckets {
  readonly workload: string;
  readonly phase: string;
  readonly buckets: BucketCounts;
}

/** What a load needs to read its metrics: the histogram bounds and the client IDs labelled one by one. */
export interface MetricsReadOptions {
  /** Histogram bucket bounds (ms), ascending. */
  readonly bucketsMs: readonly number[];
  /** `--metrics-clients N`: the run's first N client IDs; every other client counts as "other". */
  readonly labelledClients: readonly string[];
  /** `--metrics-tag KEY`: step tags that become labels (none by default: cardinality stays the steps'). */
  readonly tagKeys?: readonly string[];
}

/** The label a step tag is exposed under: `tag_` and its key, with what a label name cannot hold as `_`. */
export function tagLabelName(key: string): string {
  return `tag_${key.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/** A series' workload and tag labels: `workload`, then `tag_KEY` per labelled key. */
export function scopeLabels(
  scope: Pick<SeriesScope, 'workload'> & Partial<SeriesScope>,
  tagKeys: readonly string[],
): Record<string, string> {
  const labels: Record<string, string> = { workload: scope.workload };
  tagKeys.forEach((key, i) => (labels[tagLabelName(key)] = scope.tags?.[i] ?? ''));
  return labels;
}

/** The workload of a plan without `workloads`. */
export const DEFAULT_WORKLOAD = 'default';

/** The client label of every client beyond the labelled ones. */
export const OTHER_CLIENTS = 'other';

export interface ClientCount {
  /** A labelled client ID, or OTHER_CLIENTS. */
  readonly client: string;
  /** API requests completed. */
  readonly sent: number;
  /** Refused with 429. */
  readonly rateLimited: number;
}

/** Figures of the moment (not counters): summed across workers, taken from the latest step in a search. */
export interface MetricsGauges {
  readonly inFlight: number;
  /** Arrivals per second the schedule asks for now (0 in the closed model and between phases). */
  readonly offeredArrivalRate: number;
  /** Requests completed in the last whole second. */
  readonly achievedRequestRate: number;
  /** The same two per workload (a replay's offered rate: its recording's over the last second, at its speed). */
  readonly byWorkload: readonly WorkloadGauges[];
}

export interface WorkloadGauges {
  readonly workload: string;
  readonly offeredArrivalRate: number;
  readonly achievedRequestRate: number;
}

export interface MetricsSnapshot {
  readonly boundsMs: readonly number[];
  /** The step tags labelled (`--metrics-tag`), in the order of each series' `tags`. */
  readonly tagKeys: readonly string[];
  readonly requests: readonly RequestCount[];
  readonly latency: readonly PhaseMethodBuckets[];
  readonly serviceTime: readonly PhaseMethodBuckets[];
  /** Open-model phases only (the closed model has no schedule). */
  readonly scheduleLag: readonly PhaseBuckets[];
  readonly tokens: { readonly requests: number; readonly failures: number };
  /** Arrivals not sent, by the driver's reason. */
  readonly skipped: Readonly<Record<string, number>>;
  /** Back-offs a client sat out before its next request: how many, and the seconds waited in all. */
  readonly retryAfterWaits: { readonly count: number; readonly seconds: number };
  /** Empty without labelled clients: the cap is applied where the figures are read, so a message stays small. */
  readonly clients: readonly ClientCount[];
  readonly gauges: MetricsGauges;
}

/** One phase × method cell of the recorder (see RecordedCell): its counts and µs histograms. */
export interface MetricsCell {
  readonly phaseIndex: number;
  readonly methodIndex: number;
  /** The plan's step (dimensions.steps); absent: the method's only step. */
  readonly stepIndex?: number;
  readonly stats: {
    readonly requests: number;
    /** Indexed like `MetricsSource.outcomeKeys`. */
    readonly outcomeCounts: ArrayLike<number>;
    readonly latency: Histogram;
    readonly serviceTime: Histogram;
  };
  /** The latest request with a trace context per bucket (the recorder's cells have it). */
  readonly latestTraced?: { list(which: 'latency' | 'serviceTime'): readonly TracedRequest[] };
}

/** What a snapshot is read from (the Recorder): its cells and the figures it keeps beside them. */
export interface MetricsSource {
  readonly dimensions: RecorderDimensions;
  /** Outcome keys by outcome index. */
  readonly outcomeKeys: readonly string[];
  forEachCell(visit: (cell: MetricsCell) => void): void;
  /** A phase's schedule-lag histogram (µs); undefined when it had no open-model request. */
  scheduleLagOf(phaseIndex: number): Histogram | undefined;
  /** Retry-After back-offs sat out before a request: count and total ms waited. */
  retryAfterWaits(): { readonly count: number; readonly waitedMs: number };
}

/**
 * Counts at or below each bound (µs) of an HDR histogram: a value counts as at or below a bound
 * when it lies in the HDR bucket holding the bound or below (HDR's precision, 0.1 % for latency
 * histograms). One pass over the counts array, reading it directly (as valuesAtPercentilesUs does)
 * and stopping at the last recorded value; the sum is the histogram's mean × count.
 */
export function bucketCounts(histogram: Histogram, boundsUs: readonly number[]): BucketCounts {
  const h = histogram as unknown as {
    totalCount: number;
    countsArrayLength: number;
    countsArrayIndex(value: number): number;
    getCountAtIndex(i: number): number;
    _counts?: ArrayLike<number>;
  };
  const total = h.totalCount;
  if (total === 0) return { cumulative: boundsUs.map(() => 0), sumSeconds: 0, count: 0 };
  const counts = h._counts;
  const length = h.countsArrayLength;
  let i = 0;
  let seen = 0;
  const cumulative = boundsUs.map((boundUs) => {
    const last = Math.min(h.countsArrayIndex(Math.max(0, Math.floor(boundUs))), length - 1);
    for (; i <= last && seen < total; i++) seen += counts === undefined ? h.getCountAtIndex(i) : counts[i]!;
    return seen;
  });
  const { meanUs } = valuesAtPercentilesUs(histogram, []);
  return { cumulative, sumSeconds: (meanUs * total) / 1e6, count: total };
}

const emptyBuckets = (bounds: number): BucketCounts => ({
  cumulative: new Array<number>(bounds).fill(0),
  sumSeconds: 0,
  count: 0,
});

function addBuckets(a: BucketCounts, b: BucketCounts): BucketCounts {
  return {
    cumulative: a.cumulative.map((n, i) => n + (b.cumulative[i] ?? 0)),
    sumSeconds: a.sumSeconds + b.sumSeconds,
    count: a.count + b.count,
  };
}

const key = (...parts: string[]): string => parts.join('\u0000');

/** The later of two exemplars of one bucket (OpenMetrics keeps a bucket's last). */
const later = (a: BucketExemplar | null | undefined, b: BucketExemplar | null | undefined): BucketExemplar | null =>
  a == null ? (b ?? null) : b == null || a.timestampS >= b.timestampS ? a : b;

/**
 * The exemplar of each bucket of `boundsMs` (and `+Inf`): of the kept requests whose figure falls
 * in it, the latest; undefined when none was kept. With the default bounds the recorder kept one
 * per bucket already; other bounds take the latest of those that fall in each.
 */
function bucketExemplars(
  kept: readonly TracedRequest[],
  boundsMs: readonly number[],
  originEpochMs: number,
): (BucketExemplar | null)[] | undefined {
  if (kept.length === 0 || Number.isNaN(originEpochMs)) return undefined;
  const out: (BucketExemplar | null)[] = new Array<BucketExemplar | null>(boundsMs.length + 1).fill(null);
  for (const r of kept) {
    // To the ns: the figure as written, and the bucket it falls in by that figure.
    const valueSeconds = Math.round(r.valueUs * 1000) / 1e9;
    let i = 0;
    while (i < boundsMs.length && valueSeconds * 1000 > boundsMs[i]!) i++;
    out[i] = later(out[i], {
      traceId: r.traceId,
      spanId: r.spanId,
      valueSeconds,
      timestampS: Math.round(originEpochMs + r.doneAtMs) / 1000,
    });
  }
  return out;
}

/** Two exemplar lists of one histogram, bucket by bucket: the later of each. */
function laterExemplars(
  a: readonly (BucketExemplar | null)[] | undefined,
  b: readonly (BucketExemplar | null)[] | undefined,
): readonly (BucketExemplar | null)[] | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return a.map((e, i) => later(e, b[i]));
}

/**
 * Read a snapshot off `source` (a few histogram passes per cell; call it at most a few times a
 * second). `live` is the recorder's live snapshot of the same moment (tokens, skips, clients,
 * last-second rate), `gauges` what only the driver knows, `originEpochMs` the wall-clock time of
 * the run's origin (exemplar timestamps; without it, no exemplars).
 */
export function buildMetricsSnapshot(
  source: MetricsSource,
  live: LiveSnapshot,
  gauges: Omit<MetricsGauges, 'achievedRequestRate' | 'byWorkload'> & {
    readonly offeredByWorkload?: readonly number[];
  },
  options: MetricsReadOptions,
  originEpochMs = Number.NaN,
): MetricsSnapshot {
  const { methods, phases } = source.dimensions;
  const workloadOf = workloadNames(source.dimensions);
  const tagKeys = options.tagKeys ?? [];
  const tagsOf = stepTagValues(source.dimensions, tagKeys);
  const boundsMs = options.bucketsMs;
  const boundsUs = boundsMs.map((ms) => ms * 1000);
  const outcomeKeys = source.outcomeKeys;
  const requests: RequestCount[] = [];
  const latency: PhaseMethodBuckets[] = [];
  const serviceTime: PhaseMethodBuckets[] = [];
  source.forEachCell(({ phaseIndex, methodIndex, stepIndex, stats, latestTraced }) => {
    if (stats.requests === 0) return;
    const phase = phases[phaseIndex] ?? `phase-${phaseIndex}`;
    const method = methods[methodIndex] ?? `method-${methodIndex}`;
    const scope: SeriesScope = { workload: workloadOf(phaseIndex), tags: tagsOf(stepIndex) };
    outcomeKeys.forEach((outcome, i) => {
      const count = stats.outcomeCounts[i] ?? 0;
      if (count > 0) requests.push({ ...scope, phase, method, outcome, count });
    });
    const exemplars = (which: 'latency' | 'serviceTime'): Pick<PhaseMethodBuckets, 'exemplars'> => {
      const list =
        latestTraced === undefined ? undefined : bucketExemplars(latestTraced.list(which), boundsMs, originEpochMs);
      return list === undefined ? {} : { exemplars: list };
    };
    latency.push({ ...scope, phase, method, buckets: bucketCounts(stats.latency, boundsUs), ...exemplars('latency') });
    serviceTime.push({
      ...scope,
      phase,
      method,
      buckets: bucketCounts(stats.serviceTime, boundsUs),
      ...exemplars('serviceTime'),
    });
  });
  const scheduleLag = phases.flatMap((phase, i) => {
    const lag = source.scheduleLagOf(i);
    return lag === undefined || lag.totalCount === 0
      ? []
      : [{ workload: workloadOf(i), phase, buckets: bucketCounts(lag, boundsUs) }];
  });
  const waits = source.retryAfterWaits();
  const names = source.dimensions.workloads ?? [DEFAULT_WORKLOAD];
  const byWorkload = names.map((workload, w) => ({
    workload,
    offeredArrivalRate: gauges.offeredByWorkload?.[w] ?? (names.length === 1 ? gauges.offeredArrivalRate : 0),
    achievedRequestRate: live.workloads.find((row) => row.name === workload)?.rpsLastSecond ?? 0,
  }));
  // Cells of one phase and method that differ only in tags not labelled are one series each.
  const merged = sumMetricsSnapshots([
    {
      boundsMs: [...boundsMs],
      tagKeys: [...tagKeys],
      requests,
      latency,
      serviceTime,
      scheduleLag,
      tokens: { requests: 0, failures: 0 },
      skipped: {},
      retryAfterWaits: { count: 0, seconds: 0 },
      clients: [],
      gauges: { inFlight: 0, offeredArrivalRate: 0, achievedRequestRate: 0, byWorkload: [] },
    },
  ])!;
  return {
    boundsMs: [...boundsMs],
    tagKeys: [...tagKeys],
    requests: merged.requests,
    latency: merged.latency,
    serviceTime: merged.serviceTime,
    scheduleLag: merged.scheduleLag,
    tokens: { requests: live.tokens.requests, failures: live.tokens.failures },
    skipped: { ...live.skipped },
    retryAfterWaits: { count: waits.count, seconds: waits.waitedMs / 1000 },
    clients: labelClients(live, options.labelledClients),
    gauges: {
      inFlight: gauges.inFlight,
      offeredArrivalRate: gauges.offeredArrivalRate,
      achievedRequestRate: live.rpsLastSecond,
      byWorkload,
    },
  };
}

/** Each phase's workload name (the plan's order); every phase is `default`'s without workloads. */
function workloadNames(dims: RecorderDimensions): (phaseIndex: number) => string {
  const names = dims.workloads ?? [DEFAULT_WORKLOAD];
  return (phaseIndex) => names[dims.phaseWorkloads?.[phaseIndex] ?? 0] ?? DEFAULT_WORKLOAD;
}

/** A step's values of the labelled tag keys ('' where it has none); none without keys. */
function stepTagValues(
  dims: RecorderDimensions,
  keys: readonly string[],
): (stepIndex: number | undefined) => readonly string[] {
  if (keys.length === 0) return () => [];
  const byStep = (dims.steps ?? []).map((step) => {
    const tags = new Map(step.tags.map((tag) => [tag.slice(0, tag.indexOf(':')), tag.slice(tag.indexOf(':') + 1)]));
    return keys.map((k) => tags.get(k) ?? '');
  });
  const none = keys.map(() => '');
  return (stepIndex) => (stepIndex === undefined ? none : (byStep[stepIndex] ?? none));
}

/** The labelled clients' counts, and the others' summed as OTHER_CLIENTS (none without labelled clients). */
function labelClients(live: LiveSnapshot, labelled: readonly string[]): ClientCount[] {
  if (labelled.length === 0) return [];
  const kept = new Set(labelled);
  const clients: ClientCount[] = [];
  const other = { client: OTHER_CLIENTS, sent: 0, rateLimited: 0 };
  let others = 0;
  for (const c of live.clients) {
    if (kept.has(c.id)) clients.push({ client: c.id, sent: c.sent, rateLimited: c.refused });
    else {
      others++;
      other.sent += c.sent;
      other.rateLimited += c.refused;
    }
  }
  return others === 0 ? clients : [...clients, other];
}

/**
 * The exact sum of snapshots taken with the same bounds: counters and histograms add up; gauges
 * add up too (`gauges: 'sum'`, worker threads running side by side) or are the last part's
 * (`'last'`: finished capacity steps plus the running one). Null when there is nothing to sum.
 */
export function sumMetricsSnapshots(
  parts: readonly MetricsSnapshot[],
  gauges: 'sum' | 'last' = 'sum',
): MetricsSnapshot | null {
  const first = parts[0];
  if (first === undefined) return null;
  const bounds = first.boundsMs.length;
  if (parts.some((p) => p.boundsMs.length !== bounds || p.boundsMs.some((b, i) => b !== first.boundsMs[i])))
    throw new RangeError('metrics snapshots with different bucket bounds cannot be summed');
  const requests = new Map<string, RequestCount>();
  const latency = new Map<string, PhaseMethodBuckets>();
  const serviceTime = new Map<string, PhaseMethodBuckets>();
  const scheduleLag = new Map<string, PhaseBuckets>();
  const skipped: Record<string, number> = {};
  const clients = new Map<string, ClientCount>();
  const byWorkload = new Map<string, WorkloadGauges>();
  let tokenRequests = 0;
  let tokenFailures = 0;
  let waitCount = 0;
  let waitSeconds = 0;
  const addHistograms = <
    T extends { readonly buckets: BucketCounts; readonly exemplars?: PhaseMethodBuckets['exemplars'] },
  >(
    into: Map<string, T>,
    k: string,
    item: T,
  ): void => {
    const before = into.get(k);
    const exemplars = laterExemplars(before?.exemplars, item.exemplars);
    into.set(k, {
      ...item,
      buckets: addBuckets(before?.buckets ?? emptyBuckets(bounds), item.buckets),
      ...(exemplars === undefined ? {} : { exemplars }),
    });
  };
  for (const part of parts) {
    for (const r of part.requests) {
      const k = key(r.workload, r.phase, r.method, r.outcome, ...r.tags);
      requests.set(k, { ...r, count: (requests.get(k)?.count ?? 0) + r.count });
    }
    for (const l of part.latency) addHistograms(latency, key(l.workload, l.phase, l.method, ...l.tags), l);
    for (const s of part.serviceTime) addHistograms(serviceTime, key(s.workload, s.phase, s.method, ...s.tags), s);
    for (const l of part.scheduleLag) addHistograms(scheduleLag, key(l.workload, l.phase), l);
    for (const g of part.gauges.byWorkload) {
      const before = gauges === 'last' ? undefined : byWorkload.get(g.workload);
      byWorkload.set(g.workload, {
        workload: g.workload,
        offeredArrivalRate: (before?.offeredArrivalRate ?? 0) + g.offeredArrivalRate,
        achievedRequestRate: (before?.achievedRequestRate ?? 0) + g.achievedRequestRate,
      });
    }
    for (const [reason, n] of Object.entries(part.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
    for (const c of part.clients) {
      const before = clients.get(c.client);
      clients.set(c.client, {
        client: c.client,
        sent: (before?.sent ?? 0) + c.sent,
        rateLimited: (before?.rateLimited ?? 0) + c.rateLimited,
      });
    }
    tokenRequests += part.tokens.requests;
    tokenFailures += part.tokens.failures;
    waitCount += part.retryAfterWaits.count;
    waitSeconds += part.retryAfterWaits.seconds;
  }
  const sumOf = (pick: (g: MetricsGauges) => number): number => parts.reduce((total, p) => total + pick(p.gauges), 0);
  return {
    boundsMs: [...first.boundsMs],
    tagKeys: [...first.tagKeys],
    requests: [...requests.values()],
    latency: [...latency.values()],
    serviceTime: [...serviceTime.values()],
    scheduleLag: [...scheduleLag.values()],
    tokens: { requests: tokenRequests, failures: tokenFailures },
    skipped,
    retryAfterWaits: { count: waitCount, seconds: waitSeconds },
    clients: [...clients.values()],
    gauges:
      gauges === 'last'
        ? { ...parts[parts.length - 1]!.gauges }
        : {
            inFlight: sumOf((g) => g.inFlight),
            offeredArrivalRate: sumOf((g) => g.offeredArrivalRate),
            achievedRequestRate: sumOf((g) => g.achievedRequestRate),
            byWorkload: [...byWorkload.values()],
          },
  };
}
