/**
 * An OTLP/HTTP metrics receiver for tests: a node:http server on 127.0.0.1 that accepts
 * POST /v1/metrics in protobuf (decoded with protobufjs over the OTLP metrics messages as the
 * opentelemetry-proto repository defines them, the subset of fields rpcload sends) or JSON, and
 * keeps every request as plain records. @opentelemetry/otlp-transformer (0.2xx) serializes
 * requests and decodes only responses, so the request side is decoded here.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

const OTLP_METRICS_PROTO = `
syntax = "proto3";
package otlp;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message InstrumentationScope { string name = 1; string version = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
message Metric { string name = 1; string description = 2; string unit = 3; oneof data { Gauge gauge = 5; Sum sum = 7; Histogram histogram = 9; } }
message Gauge { repeated NumberDataPoint data_points = 1; }
message Sum { repeated NumberDataPoint data_points = 1; int32 aggregation_temporality = 2; bool is_monotonic = 3; }
message Histogram { repeated HistogramDataPoint data_points = 1; int32 aggregation_temporality = 2; }
message NumberDataPoint { repeated KeyValue attributes = 7; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; oneof value { double as_double = 4; sfixed64 as_int = 6; } }
message HistogramDataPoint { repeated KeyValue attributes = 9; fixed64 start_time_unix_nano = 2; fixed64 time_unix_nano = 3; fixed64 count = 4; optional double sum = 5; repeated fixed64 bucket_counts = 6; repeated double explicit_bounds = 7; }
`;
const Request = protobuf.parse(OTLP_METRICS_PROTO).root.lookupType('otlp.ExportMetricsServiceRequest');

/** One data point, numbers as numbers (OTLP/JSON sends 64-bit integers as strings). */
export interface ReceivedPoint {
  readonly attributes: Readonly<Record<string, string>>;
  readonly startTimeUnixNano: number;
  /** Sum and gauge points. */
  readonly value?: number;
  /** Histogram points: per-bucket counts (not cumulative), the bounds, sum and count. */
  readonly bucketCounts?: readonly number[];
  readonly explicitBounds?: readonly number[];
  readonly sum?: number;
  readonly count?: number;
}

export interface ReceivedMetric {
  readonly name: string;
  readonly kind: 'sum' | 'gauge' | 'histogram';
  /** 1 delta, 2 cumulative (OTLP's AggregationTemporality); 0 for gauges. */
  readonly temporality: number;
  readonly points: readonly ReceivedPoint[];
}

export interface ReceivedExport {
  readonly contentType: string;
  readonly headers: IncomingHttpHeaders;
  readonly resource: Readonly<Record<string, string>>;
  readonly metrics: readonly ReceivedMetric[];
}

export interface OtlpReceiver {
  /** Base URL (what --otlp-endpoint takes). */
  readonly url: string;
  readonly received: ReceivedExport[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const attributes = (value: unknown): Record<string, string> =>
  Object.fromEntries(
    list(value).map((kv) => {
      const v = (kv.value ?? {}) as Json;
      return [
        String(kv.key),
        JSON.stringify(v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? '').replace(/^"|"$/g, ''),
      ];
    }),
  );

/** The decoded request (protobufjs's object form and OTLP/JSON share their camelCase shape). */
function normalize(request: Json, contentType: string, headers: IncomingHttpHeaders): ReceivedExport {
  const rm = list(request.resourceMetrics)[0] ?? {};
  const metrics = list(rm.scopeMetrics).flatMap((sm) =>
    list(sm.metrics).map((m): ReceivedMetric => {
      const kind = m.histogram !== undefined ? 'histogram' : m.sum !== undefined ? 'sum' : 'gauge';
      const data = (m[kind] ?? {}) as Json;
      return {
        name: String(m.name),
        kind,
        temporality: Number(data.aggregationTemporality ?? 0),
        points: list(data.dataPoints).map((p) => ({
          attributes: attributes(p.attributes),
          startTimeUnixNano: Number(p.startTimeUnixNano ?? 0),
          ...(kind === 'histogram'
            ? {
                bucketCounts: (p.bucketCounts as unknown[] | undefined)?.map(Number) ?? [],
                explicitBounds: (p.explicitBounds as unknown[] | undefined)?.map(Number) ?? [],
                sum: Number(p.sum ?? 0),
                count: Number(p.count ?? 0),
              }
            : { value: Number(p.asDouble ?? p.asInt ?? 0) }),
        })),
      };
    }),
  );
  return { contentType, headers, resource: attributes((rm.resource as Json | undefined)?.attributes), metrics };
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedExport[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/metrics') {
        res.writeHead(404).end();
        return;
      }
      const decoded = contentType.includes('json')
        ? (JSON.parse(body.toString('utf8')) as Json)
        : Request.toObject(Request.decode(body), { longs: Number, enums: Number, arrays: true });
      received.push(normalize(decoded, contentType, req.headers));
      res
        .writeHead(200, {
          'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf',
        })
        .end(contentType.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
