/**
 * The Prometheus registry of `--metrics-listen`: prom-client metrics whose values are filled, at
 * each scrape, from the latest summed metrics snapshot (counters and gauges through prom-client's
 * own classes in their collect(); histograms as metric objects that hand prom-client the bucket
 * counts already read off the HDR histograms). The text format is prom-client's: the Prometheus
 * text format, or OpenMetrics with exemplars (trace and span ids) on the latency and service-time
 * buckets. docs/metrics.md lists every metric; the Grafana dashboard and its test rely on the names.
 */
import { Counter, Gauge, Registry, type Metric, type RegistryContentType } from 'prom-client';
import { outcomeClass } from '../api/outcome.ts';
import {
  scopeLabels,
  tagLabelName,
  type BucketCounts,
  type BucketExemplar,
  type MetricsSnapshot,
  type PhaseMethodBuckets,
} from './metrics-snapshot.ts';

/** Labels every series carries: which run, profile and shard it belongs to. */
export interface RunLabels {
  readonly runId: string;
  readonly profile: string;
  /** "2/4" for shard 2 of 4 (1-based, as `--shard`); "1/1" when the run is not sharded. */
  readonly shard: string;
}

/** Where a capacity search stands; a null bracket end is exposed as NaN. */
export interface CapacityGauges {
  readonly stepIndex: number;
  /** The current step's rate per second (open model) or virtual users (closed model). */
  readonly stepLoad: number;
  readonly bracketLow: number | null;
  readonly bracketHigh: number | null;
}

export interface RegistrySources {
  /** The figures of this scrape (read once per scrape by the endpoint); null before any. */
  readonly snapshot: () => MetricsSnapshot | null;
  /** Set for `capacity` only. */
  readonly capacity?: () => CapacityGauges | null;
  /** `--metrics-clients N`: N > 0 registers the per-client counters (the snapshot holds the first N clients and "other"). */
  readonly clientsCap: number;
  /** `--metrics-tag`: the step tags labelled on the request series (the snapshot's `tagKeys`). */
  readonly tagKeys?: readonly string[];
  /** OpenMetrics output (prom-client's OPENMETRICS_CONTENT_TYPE), with exemplars; default the Prometheus text format, without. */
  readonly openMetrics?: boolean;
}

type Labels = Record<string, string>;

/** A bucket's exemplar as prom-client's formatter writes it: ` # {trace_id="…",span_id="…"} value timestamp`. */
interface PromExemplar {
  labelSet: Labels;
  value: number;
  timestamp: number;
}

interface HistogramSeries {
  readonly labels: Labels;
  readonly buckets: BucketCounts;
  /** One per bound plus `+Inf` (see PhaseMethodBuckets); written only in OpenMetrics. */
  readonly exemplars?: PhaseMethodBuckets['exemplars'];
}

const promExemplar = (e: BucketExemplar | null | undefined): { exemplar: PromExemplar } | Record<string, never> =>
  e == null
    ? {}
    : {
        exemplar: {
          labelSet: { trace_id: e.traceId, span_id: e.spanId },
          value: e.valueSeconds,
          timestamp: e.timestampS,
        },
      };

interface HistogramValue {
  labels: Labels;
  value: number;
  metricName: string;
  exemplar?: PromExemplar;
}

/** A histogram whose buckets come ready-counted from the snapshot; prom-client formats it. */
class SnapshotHistogram {
  // prom-client's typings declare `type` as a numeric enum; at run time (and in its formatter) it is the word.
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => readonly HistogramSeries[],
    private readonly boundsMs: () => readonly number[],
    private readonly withExemplars: boolean,
  ) {}

  get(): { name: string; help: string; type: string; aggregator: string; values: HistogramValue[] } {
    const values: HistogramValue[] = [];
    const bounds = this.boundsMs();
    for (const { labels, buckets, exemplars } of this.read()) {
      const exemplar = (i: number): ReturnType<typeof promExemplar> =>
        this.withExemplars ? promExemplar(exemplars?.[i]) : {};
      bounds.forEach((ms, i) => {
        values.push({
          labels: { ...labels, le: String(ms / 1000) },
          value: buckets.cumulative[i] ?? 0,
          metricName: `${this.name}_bucket`,
          ...exemplar(i),
        });
      });
      values.push({
        labels: { ...labels, le: '+Inf' },
        value: buckets.count,
        metricName: `${this.name}_bucket`,
        ...exemplar(bounds.length),
      });
      values.push({ labels, value: buckets.sumSeconds, metricName: `${this.name}_sum` });
      values.push({ labels, value: buckets.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** The registry for one run; `labels` go on every series. */
export function createMetricsRegistry(labels: RunLabels, sources: RegistrySources): Registry<RegistryContentType> {
  const openMetrics = sources.openMetrics === true;
  const registry = new Registry<RegistryContentType>();
  // Chosen before any metric is registered: prom-client formats counters differently in OpenMetrics.
  if (openMetrics) registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  registry.setDefaultLabels({ run_id: labels.runId, profile: labels.profile, shard: labels.shard });
  const snap = sources.snapshot;
  const registers = [registry];

  /** A counter set to the snapshot's figures at each scrape (they only ever grow within a run). */
  const counter = (
    name: string,
    help: string,
    labelNames: readonly string[],
    fill: (s: MetricsSnapshot, set: (l: Labels, n: number) => void) => void,
  ): void => {
    new Counter({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        const s = snap();
        if (s === null) return;
        fill(s, (l, n) => this.inc(l, n));
      },
    });
  };
  const gauge = (
    name: string,
    help: string,
    labelNames: readonly string[],
    fill: (set: (l: Labels, n: number) => void) => void,
  ): void => {
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        fill((l, n) => this.set(l, n));
      },
    });
  };
  const histogram = (name: string, help: string, read: (s: MetricsSnapshot) => readonly HistogramSeries[]): void => {
    registry.registerMetric(
      new SnapshotHistogram(
        name,
        help,
        () => {
          const s = snap();
          return s === null ? [] : read(s);
        },
        () => snap()?.boundsMs ?? [],
        openMetrics,
      ) as unknown as Metric,
    );
  };

  // The request series: by workload (and the step tags asked for), phase and method.
  const tagKeys = sources.tagKeys ?? [];
  const scoped = ['workload', ...tagKeys.map(tagLabelName)];
  counter(
    'rpcload_requests_total',
    'API requests completed, by workload, phase, method and outcome',
    [...scoped, 'phase', 'method', 'outcome'],
    (s, set) => {
      for (const r of s.requests)
        set({ ...scopeLabels(r, tagKeys), phase: r.phase, method: r.method, outcome: r.outcome }, r.count);
    },
  );
  counter(
    'rpcload_rate_limited_total',
    'API requests refused with 429 (rate limited), by workload, phase and method',
    [...scoped, 'phase', 'method'],
    (s, set) => {
      const sums = new Map<string, { labels: Labels; n: number }>();
      for (const r of s.requests) {
        if (outcomeClass(r.outcome) !== 'rate_limited') continue;
        const k = [r.workload, r.phase, r.method, ...r.tags].join('\u0000');
        const before = sums.get(k) ?? {
          labels: { ...scopeLabels(r, tagKeys), phase: r.phase, method: r.method },
          n: 0,
        };
        sums.set(k, { ...before, n: before.n + r.count });
      }
      for (const { labels, n } of sums.values()) set(labels, n);
    },
  );
  const cellLabels = (l: PhaseMethodBuckets): Labels => ({
    ...scopeLabels(l, tagKeys),
    phase: l.phase,
    method: l.method,
  });
  histogram(
    'rpcload_request_latency_seconds',
    'API request latency (from the intended start in the open model), by workload, phase and method',
    (s) => s.latency.map((l) => ({ labels: cellLabels(l), buckets: l.buckets, exemplars: l.exemplars })),
  );
  histogram(
    'rpcload_service_time_seconds',
    'API request service time (from the actual send), by workload, phase and method',
    (s) => s.serviceTime.map((l) => ({ labels: cellLabels(l), buckets: l.buckets, exemplars: l.exemplars })),
  );
  histogram(
    'rpcload_schedule_lag_seconds',
    'How late open-model requests were sent after their intended start, by workload and phase',
    (s) => s.scheduleLag.map((l) => ({ labels: { workload: l.workload, phase: l.phase }, buckets: l.buckets })),
  );
  counter('rpcload_token_requests_total', 'Token requests sent', [], (s, set) => set({}, s.tokens.requests));
  counter('rpcload_token_failures_total', 'Token requests that did not yield a token', [], (s, set) =>
    set({}, s.tokens.failures),
  );
  counter('rpcload_skipped_arrivals_total', 'Open-model arrivals not sent, by reason', ['reason'], (s, set) => {
    for (const [reason, n] of Object.entries(s.skipped)) set({ reason }, n);
  });
  counter(
    'rpcload_retry_after_waits_total',
    'Retry-After back-offs a client sat out before its next request',
    [],
    (s, set) => set({}, s.retryAfterWaits.count),
  );
  counter(
    'rpcload_retry_after_wait_seconds_total',
    'Seconds clients spent sitting out Retry-After back-offs',
    [],
    (s, set) => set({}, s.retryAfterWaits.seconds),
  );
  gauge('rpcload_in_flight_requests', 'API requests sent and not yet answered', [], (set) =>
    set({}, snap()?.gauges.inFlight ?? 0),
  );
  gauge(
    'rpcload_offered_arrivals_per_second',
    "Arrivals per second each workload's schedule asks for now (0 in the closed model; a replay: its recording's last second × speed)",
    ['workload'],
    (set) => {
      for (const g of snap()?.gauges.byWorkload ?? []) set({ workload: g.workload }, g.offeredArrivalRate);
    },
  );
  gauge(
    'rpcload_achieved_requests_per_second',
    'API requests completed in the last whole second, by workload',
    ['workload'],
    (set) => {
      for (const g of snap()?.gauges.byWorkload ?? []) set({ workload: g.workload }, g.achievedRequestRate);
    },
  );
  if (sources.clientsCap > 0) {
    // The snapshot holds the labelled clients and "other" already (capped where it was read).
    const perClient =
      (pick: (c: MetricsSnapshot['clients'][number]) => number) =>
      (s: MetricsSnapshot, set: (l: Labels, n: number) => void) => {
        for (const c of s.clients) set({ client: c.client }, pick(c));
      };
    counter(
      'rpcload_client_requests_total',
      'API requests completed per client ID (first --metrics-clients IDs; the rest as "other")',
      ['client'],
      perClient((c) => c.sent),
    );
    counter(
      'rpcload_client_rate_limited_total',
      'API requests refused with 429 per client ID (first --metrics-clients IDs; the rest as "other")',
      ['client'],
      perClient((c) => c.rateLimited),
    );
  }
  const capacity = sources.capacity;
  if (capacity !== undefined) {
    const capacityGauge = (name: string, help: string, pick: (c: CapacityGauges) => number | null): void =>
      gauge(name, help, [], (set) => {
        const value = capacity();
        // NaN, not 0, while unknown: a graph shows a gap rather than a bracket at zero.
        set({}, value === null ? Number.NaN : (pick(value) ?? Number.NaN));
      });
    capacityGauge(
      'rpcload_capacity_step_index',
      'The capacity search step running now (1 = the first)',
      (c) => c.stepIndex,
    );
    capacityGauge(
      'rpcload_capacity_step_load',
      "The current step's rate per second (open model) or virtual users (closed model)",
      (c) => c.stepLoad,
    );
    capacityGauge(
      'rpcload_capacity_bracket_low',
      'The highest load that passed so far (NaN until one has)',
      (c) => c.bracketLow,
    );
    capacityGauge(
      'rpcload_capacity_bracket_high',
      'The lowest load that failed so far (NaN until one has)',
      (c) => c.bracketHigh,
    );
  }
  return registry;
}
