/**
 * The OTLP metrics push end to end: a real run against the reference server pushes to a real
 * OTLP/HTTP receiver on 127.0.0.1 (protobuf or JSON, decoded there). What the collector ends up
 * with must equal the result file; temporality, resource attributes, headers and histogram
 * buckets must be right; a collector that is down must cost the run nothing.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { decodeHistogram } from '../../src/metrics/hdr.ts';
import { bucketCounts, DEFAULT_METRICS_BUCKETS_MS } from '../../src/prometheus/metrics-snapshot.ts';
import { resolveOtlpOptions } from '../../src/prometheus/otlp-push.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runSession } from '../../src/session/run-session.ts';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedExport,
  type ReceivedMetric,
} from '../support/otlp-receiver.ts';
import { freePort } from '../support/prometheus-text.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-otlp-');
let server: ServerHandle | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await Promise.all([server?.close(), receiver?.close()]);
  server = undefined;
  receiver = undefined;
});

async function run(
  endpoint: string,
  env: NodeJS.ProcessEnv,
  durationS = 2,
): Promise<{ result: RunResult; elapsedMs: number; warnings: string[] }> {
  server = await startServer({ limit: 100_000 });
  const plan = buildPlan(
    {
      name: 'otlp-test',
      target: server.url,
      clients: { pattern: 'client-{n}', count: 2, secret: 'demo-secret' },
      scenarios: [
        { name: 'ping', weight: 3, steps: [{ method: 'ping' }] },
        { name: 'echo', steps: [{ method: 'echo', args: { n: 1 } }] },
      ],
      phases: [{ duration: `${durationS}s`, rate: 100 }],
    },
    { source: '' },
  );
  const warnings: string[] = [];
  const startedAt = Date.now();
  const { result } = await runSession({
    plan,
    outPath: join(dir, `${Math.random().toString(36).slice(2)}.json`),
    signal: new AbortController().signal,
    createView: () => ({ start: () => undefined, stop: () => undefined }),
    otlp: resolveOtlpOptions({ endpoint, intervalMs: 400 }, env),
    warn: (warning) => warnings.push(warning),
  });
  return { result, elapsedMs: Date.now() - startedAt, warnings };
}

const metric = (exported: ReceivedExport, name: string): ReceivedMetric =>
  exported.metrics.find((m) => m.name === name)!;
const total = (m: ReceivedMetric): number => m.points.reduce((sum, p) => sum + (p.value ?? p.count ?? 0), 0);

describe('OTLP metrics push', () => {
  it('over protobuf, cumulative: the last push equals the result file, with the run’s resource and the buckets of the histograms', async () => {
    receiver = await startOtlpReceiver();
    const { result } = await run(receiver.url, {
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,service.namespace=load',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=perf%20team',
    });
    expect(receiver.received.length).toBeGreaterThanOrEqual(3); // every 400 ms over 2 s, and once at the end
    const last = receiver.received.at(-1)!;
    expect(last.contentType).toBe('application/x-protobuf');
    expect(last.headers['x-team']).toBe('perf team');
    expect(last.resource).toMatchObject({
      'service.name': 'rpcload',
      'deployment.environment': 'test',
      'service.namespace': 'load',
      'rpcload.run_id': result.run.id,
      'rpcload.profile': 'otlp-test',
      'rpcload.shard': '1/1',
    });
    const requests = metric(last, 'rpcload.requests');
    expect(requests.temporality).toBe(2);
    expect(total(requests)).toBe(result.summary.requests);
    expect(total(requests)).toBe(200);
    for (const [method, stats] of Object.entries(result.byMethod)) {
      const own = requests.points.filter((p) => p.attributes.method === method);
      expect(own.reduce((sum, p) => sum + p.value!, 0)).toBe(stats.requests);
      expect(Object.fromEntries(own.map((p) => [p.attributes.outcome, p.value]))).toEqual(stats.outcomes);
    }
    const latency = metric(last, 'rpcload.request.latency');
    expect(latency.kind).toBe('histogram');
    expect(latency.temporality).toBe(2);
    for (const point of latency.points) {
      expect(point.explicitBounds).toEqual(DEFAULT_METRICS_BUCKETS_MS.map((ms) => ms / 1000));
      expect(point.bucketCounts!.length).toBe(DEFAULT_METRICS_BUCKETS_MS.length + 1);
      expect(point.bucketCounts!.reduce((a, b) => a + b, 0)).toBe(point.count);
      expect(point.count).toBe(result.byMethod[point.attributes.method!]!.requests);
      // The recorder's own buckets: the result file's HDR histogram of the method, counted at the same bounds.
      const hdr = bucketCounts(
        decodeHistogram(result.histograms.byMethod[point.attributes.method!]!.latency),
        DEFAULT_METRICS_BUCKETS_MS.map((ms) => ms * 1000),
      );
      expect(point.bucketCounts).toEqual([
        ...hdr.cumulative.map((c, i) => c - (hdr.cumulative[i - 1] ?? 0)),
        hdr.count - hdr.cumulative.at(-1)!,
      ]);
      expect(point.sum).toBeGreaterThan(0);
    }
    // Cumulative: each push counts from the run's start, so the counts never go down.
    const counts = receiver.received.map((r) => total(metric(r, 'rpcload.requests')));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(result.otlp).toMatchObject({ protocol: 'http/protobuf', temporality: 'cumulative', failed: 0 }); // a push due while one is in flight is dropped, never queued
    expect(result.otlp!.exported).toBe(receiver.received.length);
  });

  it('over JSON, delta: the pushes add up to the result file', async () => {
    receiver = await startOtlpReceiver();
    const { result } = await run(receiver.url, {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
    });
    expect(receiver.received.every((r) => r.contentType.startsWith('application/json'))).toBe(true);
    const pushes = receiver.received.map((r) => metric(r, 'rpcload.requests'));
    expect(pushes.every((m) => m.temporality === 1)).toBe(true);
    expect(pushes.reduce((sum, m) => sum + total(m), 0)).toBe(result.summary.requests);
    const latencyCounts = receiver.received.map((r) => total(metric(r, 'rpcload.request.latency')));
    expect(latencyCounts.reduce((a, b) => a + b, 0)).toBe(result.summary.requests);
    expect(result.otlp).toMatchObject({ protocol: 'http/json', temporality: 'delta', failed: 0 });
  });

  it('to a collector that is down: the run loses nothing, ends on time, and says how many exports were lost', async () => {
    const port = await freePort(); // nothing listens there
    const { result, elapsedMs, warnings } = await run(`http://127.0.0.1:${port}`, {});
    expect(result.run.status).toBe('completed');
    expect(result.summary.requests).toBe(200);
    expect(result.summary.outcomes).toEqual({ success: 200 });
    expect(elapsedMs).toBeLessThan(2000 + 8000); // the final push waits a bounded time
    expect(result.otlp!.exported).toBe(0);
    expect(result.otlp!.failed + result.otlp!.dropped).toBeGreaterThanOrEqual(3);
    const warning = `OTLP push to http://127.0.0.1:${port}/v1/metrics: ${result.otlp!.failed + result.otlp!.dropped} of ${result.otlp!.failed + result.otlp!.dropped} exports lost`;
    expect(warnings.some((w) => w.startsWith(warning))).toBe(true);
    expect(result.warnings.some((w) => w.startsWith(warning))).toBe(true);
  });
});
