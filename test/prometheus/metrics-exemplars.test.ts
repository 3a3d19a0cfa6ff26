/**
 * Exemplars on `--metrics-listen`: a real `rpcload run` (the CLI) against a server that records
 * every traceparent and delays a third of the calls itself. A scrape that asks for OpenMetrics gets
 * bucket lines carrying `# {trace_id="…",span_id="…"} value timestamp` — ids of requests the server
 * saw, values inside their bucket and at least the server's delay — and the same figures as the
 * plain scrape, which stays the Prometheus text format without exemplars. Also with `--workers 2`;
 * none with `http.traceContext: "off"`. The plain format is byte-for-byte what it was without
 * exemplars.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { prefersOpenMetrics } from '../../src/prometheus/metrics-endpoint.ts';
import { createMetricsRegistry } from '../../src/prometheus/metrics-registry.ts';
import { DEFAULT_METRICS_BUCKETS_MS, type MetricsSnapshot } from '../../src/prometheus/metrics-snapshot.ts';
import { runRpcload } from '../support/cli.ts';
import {
  parseExemplars,
  PROMETHEUS_ACCEPT,
  startTracedServer,
  withoutExemplars,
  type ScrapedExemplar,
  type TracedServer,
} from '../support/openmetrics-exemplars.ts';
import { freePort, parsePrometheusText } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-exemplars-');
let traced: TracedServer | undefined;
afterEach(async () => {
  await traced?.server.close();
  traced = undefined;
});

interface Answer {
  readonly contentType: string;
  readonly text: string;
}

async function get(url: string, accept?: string): Promise<Answer | null> {
  try {
    const response = await fetch(url, {
      headers: accept === undefined ? {} : { accept },
      signal: AbortSignal.timeout(5000),
    });
    return { contentType: response.headers.get('content-type') ?? '', text: await response.text() };
  } catch {
    return null; // not listening (yet, or any more)
  }
}

/**
 * `rpcload run` of `profile` with the endpoint on a free port, scraped both ways every 200 ms; the
 * last answers are from the linger after the result file was written (the final figures).
 */
async function scrapedRun(
  profile: Record<string, unknown>,
  extraArgs: readonly string[] = [],
): Promise<{ result: RunResult; openMetrics: Answer; text: Answer; startedS: number; endedS: number }> {
  const port = await freePort();
  const name = Math.random().toString(36).slice(2);
  const profilePath = join(dir, `${name}.profile.json`);
  const out = join(dir, `${name}.json`);
  writeFileSync(profilePath, JSON.stringify(profile));
  const startedS = Date.now() / 1000;
  let ended = false;
  const run = runRpcload(
    [
      'run',
      profilePath,
      '--ui',
      'none',
      '--out',
      out,
      '--metrics-listen',
      `127.0.0.1:${port}`,
      '--metrics-linger',
      '1500ms',
      ...extraArgs,
    ],
    { timeoutMs: 60_000 },
  ).finally(() => (ended = true));
  const url = `http://127.0.0.1:${port}/metrics`;
  let openMetrics: Answer | null = null;
  let text: Answer | null = null;
  while (!ended) {
    const [om, plain] = await Promise.all([get(url, 'application/openmetrics-text; version=1.0.0'), get(url)]);
    if (om !== null && plain !== null) [openMetrics, text] = [om, plain];
    await sleep(200);
  }
  const cli = await run;
  expect(cli.code, cli.stderr).toBe(0);
  expect(openMetrics).not.toBeNull();
  return {
    result: JSON.parse(readFileSync(out, 'utf8')) as RunResult,
    openMetrics: openMetrics!,
    text: text!,
    startedS,
    endedS: Date.now() / 1000,
  };
}

function profileFor(target: string, http: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'exemplars-test',
    seed: 11,
    target,
    clients: { pattern: 'client-{n}', count: 2, secret: 'demo-secret' },
    scenarios: [{ name: 'slow', steps: [{ method: 'slow' }] }],
    phases: [{ name: 'steady', duration: '2s', rate: 40 }],
    http,
  };
}

/** How early a Node timer may fire against the run clock (see the assertion that uses it). */
const TIMER_EARLY_MS = 1;

/** The delay the server gave the exemplar's request (its traceparent ends in the sampled flag, 00 or 01). */
function delayOfMs(server: TracedServer, e: ScrapedExemplar): number {
  const id = `00-${e.traceId}-${e.spanId}`;
  const delay = server.delaysMs.get(`${id}-00`) ?? server.delaysMs.get(`${id}-01`);
  if (delay === undefined) throw new Error(`the server saw no request ${id}`);
  return delay;
}

/** The exemplars are requests the server saw, inside their buckets, at least as slow as the server made them, stamped during the run. */
function expectExemplarsOfSeenRequests(
  exemplars: readonly ScrapedExemplar[],
  server: TracedServer,
  startedS: number,
  endedS: number,
): void {
  const seen = new Map(
    server.server.seen
      .filter((r) => !r.url.endsWith('/auth.token'))
      .map((r) => [String(r.headers.traceparent).slice(3, 52), r]),
  );
  for (const e of exemplars) {
    const key = `${e.traceId}-${e.spanId}`;
    expect(seen.has(key), `${key} was sent`).toBe(true);
    expect(e.value).toBeGreaterThan(e.below);
    expect(e.value).toBeLessThanOrEqual(e.le);
    expect(e.timestampS).toBeGreaterThanOrEqual(startedS);
    expect(e.timestampS).toBeLessThanOrEqual(endedS);
    // The server's setTimeout counts from the event loop's whole-millisecond clock: it may answer up
    // to a millisecond before the delay it was given (a CI run saw 257.99 ms for a 258 ms delay).
    expect(e.value * 1000).toBeGreaterThanOrEqual(delayOfMs(server, e) - TIMER_EARLY_MS);
  }
}

describe('exemplars on --metrics-listen', { timeout: 60_000 }, () => {
  it('are on the latency and service-time buckets of an OpenMetrics scrape: requests the server saw, inside their buckets', async () => {
    traced = await startTracedServer();
    const { result, openMetrics, text, startedS, endedS } = await scrapedRun(profileFor(traced.server.url));
    expect(result.summary.requests).toBeGreaterThan(50);
    expect(openMetrics.contentType).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    expect(openMetrics.text.endsWith('# EOF\n')).toBe(true);
    const exemplars = parseExemplars(openMetrics.text);
    expectExemplarsOfSeenRequests(exemplars, traced, startedS, endedS);
    const latency = exemplars.filter((e) => e.family === 'rpcload_request_latency_seconds');
    expect(exemplars.filter((e) => e.family === 'rpcload_service_time_seconds').length).toBeGreaterThan(0);
    expect(exemplars.filter((e) => e.family === 'rpcload_schedule_lag_seconds')).toEqual([]);
    // A fast bucket and a slow one (the server delayed a third by 150-300 ms: the 250 ms and 500 ms buckets).
    expect(latency.some((e) => e.le <= 0.1)).toBe(true);
    expect(latency.some((e) => e.le >= 0.25)).toBe(true);
    // The slow buckets hold requests the server delayed (a busy machine may put an undelayed one there too).
    expect(latency.filter((x) => x.le >= 0.25).some((e) => delayOfMs(traced!, e) > 0)).toBe(true);

    // The plain scrape: the text format, no exemplars, and the same figures.
    expect(text.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(text.text).not.toContain(' # {');
    const plain = parsePrometheusText(text.text);
    const fromOpenMetrics = parsePrometheusText(withoutExemplars(openMetrics.text));
    expect(fromOpenMetrics.samples).toEqual(plain.samples);
    expect(plain.samples.find((s) => s.name === 'rpcload_request_latency_seconds_count')?.value).toBe(
      result.summary.requests,
    );
  });

  it('come from worker threads too (--workers 2)', async () => {
    traced = await startTracedServer(7);
    const { result, openMetrics, startedS, endedS } = await scrapedRun(profileFor(traced.server.url), [
      '--workers',
      '2',
    ]);
    expect(result.run.workers).toBe(2);
    const exemplars = parseExemplars(openMetrics.text).filter((e) => e.family === 'rpcload_request_latency_seconds');
    expect(exemplars.length).toBeGreaterThanOrEqual(2);
    expectExemplarsOfSeenRequests(exemplars, traced, startedS, endedS);
  });

  it('are absent with http.traceContext "off"', async () => {
    traced = await startTracedServer();
    const { result, openMetrics } = await scrapedRun(profileFor(traced.server.url, { traceContext: 'off' }));
    expect(result.summary.requests).toBeGreaterThan(50);
    expect(traced.server.seen.every((r) => r.headers.traceparent === undefined)).toBe(true);
    expect(openMetrics.text).toContain('rpcload_request_latency_seconds_bucket');
    expect(parseExemplars(openMetrics.text)).toEqual([]);
  });
});

describe('the text format', () => {
  const labels = { runId: 'r', profile: 'p', shard: '1/1' };
  const buckets = { cumulative: DEFAULT_METRICS_BUCKETS_MS.map((_, i) => (i < 3 ? 0 : 2)), sumSeconds: 0.01, count: 2 };
  const snapshot = (withExemplars: boolean): MetricsSnapshot => {
    const exemplar = {
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      valueSeconds: 0.007,
      timestampS: 1_795_000_000.123,
    };
    const exemplars = withExemplars
      ? { exemplars: DEFAULT_METRICS_BUCKETS_MS.map((_, i) => (i === 3 ? exemplar : null)).concat(null) }
      : {};
    return {
      boundsMs: DEFAULT_METRICS_BUCKETS_MS,
      tagKeys: [],
      requests: [{ workload: 'default', tags: [], phase: 'main', method: 'm', outcome: 'success', count: 2 }],
      latency: [{ workload: 'default', tags: [], phase: 'main', method: 'm', buckets, ...exemplars }],
      serviceTime: [{ workload: 'default', tags: [], phase: 'main', method: 'm', buckets, ...exemplars }],
      scheduleLag: [],
      tokens: { requests: 1, failures: 0 },
      skipped: {},
      retryAfterWaits: { count: 0, seconds: 0 },
      clients: [],
      gauges: { inFlight: 0, offeredArrivalRate: 0, achievedRequestRate: 2, byWorkload: [] },
    };
  };
  const render = (s: MetricsSnapshot, openMetrics: boolean): Promise<string> =>
    createMetricsRegistry(labels, { snapshot: () => s, clientsCap: 0, openMetrics }).metrics();

  it('is the same with exemplars in the snapshot as without; OpenMetrics carries them', async () => {
    expect(await render(snapshot(true), false)).toBe(await render(snapshot(false), false));
    const openMetrics = await render(snapshot(true), true);
    expect(openMetrics).toContain(
      'rpcload_request_latency_seconds_bucket{workload="default",phase="main",method="m",le="0.01",run_id="r",profile="p",shard="1/1"} 2 # {trace_id="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",span_id="bbbbbbbbbbbbbbbb"} 0.007 1795000000.123',
    );
    expect(parseExemplars(openMetrics).map((e) => [e.family, e.le])).toEqual([
      ['rpcload_request_latency_seconds', 0.01],
      ['rpcload_service_time_seconds', 0.01],
    ]);
    expect(parseExemplars(await render(snapshot(false), true))).toEqual([]);
  });
});

describe('prefersOpenMetrics', () => {
  it.each([
    [PROMETHEUS_ACCEPT, true],
    ['application/openmetrics-text; version=1.0.0', true],
    ['application/openmetrics-text;q=0.5,text/plain', false],
    ['text/plain;version=0.0.4;q=0.5,application/openmetrics-text;q=0.7', true],
    ['application/openmetrics-text;q=0', false],
    ['*/*', false],
    ['text/plain', false],
    [undefined, false],
  ])('%s → %s', (accept, expected) => {
    expect(prefersOpenMetrics(accept)).toBe(expected);
  });
});
