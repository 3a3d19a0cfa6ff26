/**
 * OTLP metrics push (`--otlp-endpoint`, the OTEL_EXPORTER_OTLP_* variables): the same figures as
 * the Prometheus endpoint, read off the same metrics snapshot, sent to an OpenTelemetry Collector
 * over OTLP/HTTP (protobuf or JSON) every interval and once at the end, through the OpenTelemetry
 * JS SDK's exporters. Nothing here runs per request: each push reads one snapshot.
 *
 * The data points are built here from the snapshot rather than by the SDK's instruments, so the
 * histograms carry exactly the recorder's bucket counts (an SDK histogram would re-aggregate
 * values it never saw). Temporality follows OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE:
 * cumulative (default: counts since the run's start) or delta (counts since the previous push).
 *
 * A collector that is slow or down never holds up the run: one export is in flight at a time,
 * a push due while one is still in flight is dropped (and counted), each export has a deadline,
 * and what happened is reported in the result file.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import type { MetricData, PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { outcomeClass } from '../api/outcome.ts';
import { RpcloadError } from '../errors.ts';
import { TOOL } from '../version.ts';
import { scopeLabels, type BucketCounts, type MetricsSnapshot } from './metrics-snapshot.ts';
import type { RunLabels } from './metrics-registry.ts';

/**
 * The OpenTelemetry SDK pieces the push uses, loaded when a push starts: importing them costs every
 * CLI start about 0.1 s of CPU, and most runs push nothing.
 */
async function loadSdk() {
  const [api, core, json, protobuf, resources, metrics] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-proto'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  return {
    ValueType: api.ValueType,
    ExportResultCode: core.ExportResultCode,
    JsonExporter: json.OTLPMetricExporter,
    ProtobufExporter: protobuf.OTLPMetricExporter,
    resourceFromAttributes: resources.resourceFromAttributes,
    AggregationTemporality: metrics.AggregationTemporality,
    DataPointType: metrics.DataPointType,
  };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type OtlpTemporality = 'cumulative' | 'delta';

/** Resolved OTLP push settings. */
export interface OtlpOptions {
  /** Full URL of the metrics endpoint (…/v1/metrics). */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  readonly temporality: OtlpTemporality;
  readonly headers: Readonly<Record<string, string>>;
  /** From OTEL_RESOURCE_ATTRIBUTES; rpcload's own (run id, profile, shard) are added to them. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly intervalMs: number;
}

/** What the result file records of the push. */
export interface OtlpReport {
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  readonly temporality: OtlpTemporality;
  readonly intervalMs: number;
  /** Exports the collector accepted. */
  readonly exported: number;
  /** Exports that failed (refused, unreachable, timed out). */
  readonly failed: number;
  /** Pushes skipped because the previous export was still in flight. */
  readonly dropped: number;
}

/** Default push interval (`--otlp-interval`). */
export const DEFAULT_OTLP_INTERVAL_MS = 10_000;
/** Each export's deadline (the exporters' default); pushes due meanwhile are dropped, not queued. */
const EXPORT_TIMEOUT_MS = 10_000;
/** The final push waits at most this long for the collector. */
const FINAL_EXPORT_TIMEOUT_MS = 3000;

/** `k=v,k=v` with URL-encoded parts (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
export function parseKeyValueList(text: string | undefined, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return out;
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0)
      throw new RpcloadError(
        'bad_flag',
        `${name}: expected key=value pairs separated by commas, found ${JSON.stringify(part.trim())}`,
      );
    out[decodeURIComponent(part.slice(0, at).trim())] = decodeURIComponent(part.slice(at + 1).trim());
  }
  return out;
}

/**
 * The push settings from `--otlp-endpoint` / `--otlp-interval` and the environment, as the
 * OpenTelemetry specification names its variables; null when no endpoint is given anywhere.
 */
export function resolveOtlpOptions(
  flags: { readonly endpoint?: string; readonly intervalMs?: number },
  env: NodeJS.ProcessEnv,
): OtlpOptions | null {
  const signalUrl = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT?.trim();
  const base = flags.endpoint ?? env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (flags.endpoint === undefined && !signalUrl && !base) return null;
  const source =
    flags.endpoint !== undefined
      ? '--otlp-endpoint'
      : signalUrl
        ? 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'
        : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  // A signal-specific URL is used as it is; a base URL gets the metrics path (as the specification says).
  const raw = flags.endpoint === undefined && signalUrl ? signalUrl : `${(base ?? '').replace(/\/+$/, '')}/v1/metrics`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RpcloadError(
      'bad_flag',
      `${source}: expected an http:// or https:// URL, found ${JSON.stringify(flags.endpoint ?? signalUrl ?? base)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RpcloadError(
      'bad_flag',
      `${source}: expected an http:// or https:// URL, found ${JSON.stringify(flags.endpoint ?? signalUrl ?? base)}`,
    );
  const protocolText = (
    env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocolText !== 'http/protobuf' && protocolText !== 'http/json')
    throw new RpcloadError(
      'bad_flag',
      `OTEL_EXPORTER_OTLP_PROTOCOL: expected http/protobuf or http/json (grpc is not supported), found ${JSON.stringify(protocolText)}`,
    );
  const temporalityText = (env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE ?? 'cumulative').trim().toLowerCase();
  if (!['cumulative', 'delta', 'lowmemory'].includes(temporalityText))
    throw new RpcloadError(
      'bad_flag',
      `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: expected cumulative, delta or lowmemory, found ${JSON.stringify(temporalityText)}`,
    );
  const intervalMs = flags.intervalMs ?? DEFAULT_OTLP_INTERVAL_MS;
  if (!(intervalMs >= 100))
    throw new RpcloadError('bad_flag', `--otlp-interval: expected at least 100ms, found ${intervalMs} ms`);
  return {
    url: url.href,
    protocol: protocolText,
    // lowmemory: delta for counters and histograms, which is every monotonic series here.
    temporality: temporalityText === 'cumulative' ? 'cumulative' : 'delta',
    headers: {
      ...parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseKeyValueList(env.OTEL_EXPORTER_OTLP_METRICS_HEADERS, 'OTEL_EXPORTER_OTLP_METRICS_HEADERS'),
    },
    resourceAttributes: parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES'),
    intervalMs,
  };
}

const hrTime = (epochMs: number): HrTime => [Math.floor(epochMs / 1000), Math.round((epochMs % 1000) * 1e6)];

/** A monotonic series' value as pushed: since the start (cumulative) or since the previous push (delta). */
class Temporal {
  private readonly previous = new Map<string, number>();
  constructor(private readonly delta: boolean) {}

  value(metric: string, attributes: Attributes, total: number): number {
    if (!this.delta) return total;
    const key = `${metric}\u0000${JSON.stringify(attributes)}`;
    const before = this.previous.get(key) ?? 0;
    this.previous.set(key, total);
    return total - before;
  }

  /** Per-bucket counts (not cumulative), sum and count of a histogram, in this temporality. */
  histogram(
    metric: string,
    attributes: Attributes,
    buckets: BucketCounts,
  ): { counts: number[]; sum: number; count: number } {
    const perBucket = [
      ...buckets.cumulative.map((c, i) => c - (buckets.cumulative[i - 1] ?? 0)),
      buckets.count - (buckets.cumulative.at(-1) ?? 0),
    ];
    return {
      counts: perBucket.map((n, i) => this.value(`${metric}#${i}`, attributes, n)),
      sum: this.value(`${metric}#sum`, attributes, buckets.sumSeconds),
      count: this.value(`${metric}#count`, attributes, buckets.count),
    };
  }
}

/** The snapshot as OTLP metric data (names after the Prometheus ones, in OpenTelemetry's dotted style). */
function otlpMetrics(
  sdk: Sdk,
  s: MetricsSnapshot,
  temporal: Temporal,
  startMs: number,
  nowMs: number,
  delta: boolean,
): MetricData[] {
  const { AggregationTemporality, DataPointType, ValueType } = sdk;
  const startTime = hrTime(startMs);
  const endTime = hrTime(nowMs);
  const aggregationTemporality = delta ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE;
  const descriptor = (name: string, description: string, unit: string) => ({
    name,
    description,
    unit,
    valueType: ValueType.DOUBLE,
  });
  const sum = (name: string, description: string, points: readonly (readonly [Attributes, number])[]): MetricData => ({
    descriptor: descriptor(name, description, '1'),
    aggregationTemporality,
    dataPointType: DataPointType.SUM,
    isMonotonic: true,
    dataPoints: points.map(([attributes, total]) => ({
      startTime,
      endTime,
      attributes,
      value: temporal.value(name, attributes, total),
    })),
  });
  const gauge = (
    name: string,
    description: string,
    points: number | readonly (readonly [Attributes, number])[],
  ): MetricData => ({
    descriptor: descriptor(name, description, '1'),
    aggregationTemporality: AggregationTemporality.CUMULATIVE,
    dataPointType: DataPointType.GAUGE,
    dataPoints: (typeof points === 'number' ? [[{}, points] as const] : points).map(([attributes, value]) => ({
      startTime: endTime,
      endTime,
      attributes,
      value,
    })),
  });
  const histogram = (
    name: string,
    description: string,
    series: readonly (readonly [Attributes, BucketCounts])[],
  ): MetricData => ({
    descriptor: descriptor(name, description, 's'),
    aggregationTemporality,
    dataPointType: DataPointType.HISTOGRAM,
    dataPoints: series.map(([attributes, buckets]) => {
      const { counts, sum: total, count } = temporal.histogram(name, attributes, buckets);
      return {
        startTime,
        endTime,
        attributes,
        value: { buckets: { boundaries: s.boundsMs.map((ms) => ms / 1000), counts }, sum: total, count },
      };
    }),
  });
  // The request series carry their workload (and the step tags asked for), as the Prometheus ones do.
  const cell = (c: Pick<MetricsSnapshot['latency'][number], 'workload' | 'tags' | 'phase' | 'method'>): Attributes => ({
    ...scopeLabels(c, s.tagKeys),
    phase: c.phase,
    method: c.method,
  });
  const rateLimited = new Map<string, [Attributes, number]>();
  for (const r of s.requests) {
    if (outcomeClass(r.outcome) !== 'rate_limited') continue;
    const key = [r.workload, r.phase, r.method, ...r.tags].join('\u0000');
    rateLimited.set(key, [cell(r), (rateLimited.get(key)?.[1] ?? 0) + r.count]);
  }
  return [
    sum(
      'rpcload.requests',
      'API requests completed, by workload, phase, method and outcome',
      s.requests.map((r) => [
        { ...scopeLabels(r, s.tagKeys), phase: r.phase, method: r.method, outcome: r.outcome },
        r.count,
      ]),
    ),
    sum('rpcload.rate_limited', 'API requests refused with 429 (rate limited), by workload, phase and method', [
      ...rateLimited.values(),
    ]),
    histogram(
      'rpcload.request.latency',
      'API request latency (from the intended start in the open model), by workload, phase and method',
      s.latency.map((l) => [cell(l), l.buckets]),
    ),
    histogram(
      'rpcload.request.service_time',
      'API request service time (from the actual send), by workload, phase and method',
      s.serviceTime.map((l) => [cell(l), l.buckets]),
    ),
    histogram(
      'rpcload.schedule_lag',
      'How late open-model requests were sent after their intended start, by workload and phase',
      s.scheduleLag.map((l) => [{ workload: l.workload, phase: l.phase }, l.buckets]),
    ),
    sum('rpcload.token_requests', 'Token requests sent', [[{}, s.tokens.requests]]),
    sum('rpcload.token_failures', 'Token requests that did not yield a token', [[{}, s.tokens.failures]]),
    sum(
      'rpcload.skipped_arrivals',
      'Open-model arrivals not sent, by reason',
      Object.entries(s.skipped).map(([reason, n]) => [{ reason }, n]),
    ),
    sum('rpcload.retry_after_waits', 'Retry-After back-offs a client sat out before its next request', [
      [{}, s.retryAfterWaits.count],
    ]),
    gauge('rpcload.in_flight_requests', 'API requests sent and not yet answered', s.gauges.inFlight),
    gauge(
      'rpcload.offered_arrivals_per_second',
      'Arrivals per second the schedule asks for now (0 in the closed model)',
      s.gauges.byWorkload.map((g) => [{ workload: g.workload }, g.offeredArrivalRate]),
    ),
    gauge(
      'rpcload.achieved_requests_per_second',
      'API requests completed in the last whole second, by workload',
      s.gauges.byWorkload.map((g) => [{ workload: g.workload }, g.achievedRequestRate]),
    ),
  ];
}

/** A running push: follows a snapshot source, pushes on its interval, and once more at `finish`. */
export class OtlpPush {
  /** A push to `options`' collector, the SDK loaded. */
  static async start(options: OtlpOptions, labels: RunLabels): Promise<OtlpPush> {
    return new OtlpPush(await loadSdk(), options, labels);
  }

  private readonly exporter: PushMetricExporter;
  private readonly temporal: Temporal;
  private readonly resource;
  private readonly startMs = Date.now();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private exported = 0;
  private failed = 0;
  private dropped = 0;
  /** Exports still running when the run's ending stopped waiting for them. */
  private abandoned = 0;
  private read: () => MetricsSnapshot | null = () => null;

  private constructor(
    private readonly sdk: Sdk,
    private readonly options: OtlpOptions,
    labels: RunLabels,
  ) {
    const { JsonExporter, ProtobufExporter, resourceFromAttributes } = sdk;
    const config = { url: options.url, headers: { ...options.headers }, timeoutMillis: EXPORT_TIMEOUT_MS };
    this.exporter = options.protocol === 'http/json' ? new JsonExporter(config) : new ProtobufExporter(config);
    this.temporal = new Temporal(options.temporality === 'delta');
    this.resource = resourceFromAttributes({
      'service.name': 'rpcload',
      ...options.resourceAttributes,
      'service.version': TOOL.version,
      'rpcload.run_id': labels.runId,
      'rpcload.profile': labels.profile,
      'rpcload.shard': labels.shard,
    });
  }

  /** Push what `read` returns every interval (nothing while it returns null). */
  follow(read: () => MetricsSnapshot | null): void {
    this.read = read;
    this.timer = setInterval(() => this.push(), this.options.intervalMs);
    this.timer.unref();
  }

  /**
   * Push the final figures and say how the push went. The whole ending waits at most
   * FINAL_EXPORT_TIMEOUT_MS for the collector: first for an export still in flight, then for the
   * final one; an export still running then is abandoned (and counted as failed).
   */
  async finish(): Promise<OtlpReport> {
    if (this.timer !== null) clearInterval(this.timer);
    const deadlineMs = Date.now() + FINAL_EXPORT_TIMEOUT_MS;
    const within = async (promise: Promise<unknown>): Promise<boolean> => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadlineMs - Date.now()))),
      );
      const done = await Promise.race([promise.then(() => true), timedOut]);
      clearTimeout(timer);
      return done;
    };
    if (this.inFlight === null || (await within(this.inFlight))) {
      this.push();
      if (this.inFlight !== null && !(await within(this.inFlight))) this.abandoned++;
    } else this.abandoned++;
    void this.exporter.shutdown().catch(() => undefined); // closes its connections; nothing more is waited for
    return {
      endpoint: this.options.url,
      protocol: this.options.protocol,
      temporality: this.options.temporality,
      intervalMs: this.options.intervalMs,
      exported: this.exported,
      failed: this.failed + this.abandoned,
      dropped: this.dropped,
    };
  }

  private push(): void {
    const snapshot = this.read();
    if (snapshot === null) return;
    if (this.inFlight !== null) {
      this.dropped++;
      return;
    }
    const metrics: ResourceMetrics = {
      resource: this.resource,
      scopeMetrics: [
        {
          scope: { name: TOOL.name, version: TOOL.version },
          metrics: otlpMetrics(
            this.sdk,
            snapshot,
            this.temporal,
            this.startMs,
            Date.now(),
            this.options.temporality === 'delta',
          ),
        },
      ],
    };
    this.inFlight = new Promise<void>((resolve) => {
      this.exporter.export(metrics, (result) => {
        if (result.code === this.sdk.ExportResultCode.SUCCESS) this.exported++;
        else this.failed++;
        this.inFlight = null;
        resolve();
      });
    });
  }
}

/** The warning a run prints when pushes were lost (none when every push arrived). */
export function otlpWarning(report: OtlpReport): string | null {
  const lost = report.failed + report.dropped;
  if (lost === 0) return null;
  return `OTLP push to ${report.endpoint}: ${lost} of ${report.exported + lost} exports lost (${report.failed} failed, ${report.dropped} dropped while one was in flight); the result file has every figure`;
}
