/**
 * `--metrics-listen`: a real run against the reference server, scraped while it runs and during
 * the linger after the result file is written. Every metric docs/metrics.md lists is exposed with
 * its type and labels, counters never decrease, and the last scrape equals the result file —
 * in one thread and summed over worker threads.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { outcomeClass } from '../../src/api/outcome.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { DEFAULT_METRICS_BUCKETS_MS } from '../../src/prometheus/metrics-snapshot.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import { prepareReplays } from '../../src/profile/replay-plan.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ShardSpec } from '../../src/session/distributed/shard-spec.ts';
import { parseListenAddress } from '../../src/prometheus/metrics-endpoint.ts';
import { runSession } from '../../src/session/run-session.ts';
import { counterDecreases, freePort, scrape, sumBy, type Scrape } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

let server: ServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const dir = useTempDir('rpcload-metrics-');
const RUN_LABELS = ['profile', 'run_id', 'shard'];

/** The metric tables of docs/metrics.md: name → type and labels. */
function documentedMetrics(): Map<string, { type: string; labels: string[] }> {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/metrics.md', import.meta.url)), 'utf8');
  const metrics = new Map<string, { type: string; labels: string[] }>();
  for (const m of doc.matchAll(/^\| `(rpcload_\w+)` \| (\w+) \| ([^|]+) \|/gm)) {
    const labels = m[3]!.trim() === '–' ? [] : m[3]!.split(',').map((l) => l.trim());
    metrics.set(m[1]!, { type: m[2]!, labels });
  }
  return metrics;
}

/**
 * A run with the endpoint on a free port, scraped every 150 ms while it runs, then once more after
 * the result file is written (the endpoint lingers), then the endpoint closes.
 */
async function scrapedRun(
  profile: Record<string, unknown>,
  workers: number,
  shard: ShardSpec | null = null,
  labelledClients = 1,
  tags?: string[],
): Promise<{ result: RunResult; scrapes: Scrape[] }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/metrics`;
  const plan = await prepareReplays(buildPlan(profile, { source: join(dir, 'profile.json') }));
  let ended = false;
  const session = runSession({
    plan,
    outPath: join(dir, `${Math.random().toString(36).slice(2)}.json`),
    signal: new AbortController().signal,
    workers,
    shard,
    createView: () => ({ start: () => undefined, stop: () => undefined }),
    metrics: {
      listen: { host: '127.0.0.1', port },
      bucketsMs: DEFAULT_METRICS_BUCKETS_MS,
      clients: labelledClients,
      lingerMs: 1500,
      ...(tags === undefined ? {} : { tags }),
    },
  }).finally(() => (ended = true));
  const scrapes: Scrape[] = [];
  const deadline = Date.now() + 60_000;
  while (!ended && Date.now() < deadline) {
    try {
      scrapes.push(await scrape(url));
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
  const { result, metricsClosed } = await session;
  scrapes.push(await scrape(url)); // the final figures, while the endpoint lingers
  await metricsClosed;
  await expect(fetch(url)).rejects.toThrow(); // closed after the linger
  return { result, scrapes };
}

function expectMatchesResult(last: Scrape, result: RunResult, labelled: readonly string[] = ['client-1']): void {
  const { summary } = result;
  expect(sumBy(last, 'rpcload_requests_total', 'outcome')).toEqual(summary.outcomes);
  const limited = Object.entries(summary.outcomes).reduce(
    (n, [k, v]) => n + (outcomeClass(k) === 'rate_limited' ? v : 0),
    0,
  );
  expect(limited).toBeGreaterThan(0);
  expect(sumBy(last, 'rpcload_rate_limited_total')['']).toBe(limited);
  expect(sumBy(last, 'rpcload_token_requests_total')['']).toBe(summary.tokens.requests);
  expect(sumBy(last, 'rpcload_token_failures_total')['']).toBe(summary.tokens.failures);
  expect(sumBy(last, 'rpcload_skipped_arrivals_total', 'reason')).toEqual(summary.skipped);
  for (const h of ['rpcload_request_latency_seconds', 'rpcload_service_time_seconds'])
    expect(sumBy(last, `${h}_count`)['']).toBe(summary.requests);
  expect(sumBy(last, 'rpcload_in_flight_requests')['']).toBe(0);
  // --metrics-clients N: the first N clients of the plan by ID, everything else as "other"
  const clients = result.rateLimit!.clients;
  const others = Object.entries(clients).filter(([id]) => !labelled.includes(id));
  const expected = (pick: (c: (typeof clients)[string]) => number): Record<string, number> => ({
    ...Object.fromEntries(labelled.map((id) => [id, pick(clients[id]!)])),
    other: others.reduce((n, [, c]) => n + pick(c), 0),
  });
  expect(sumBy(last, 'rpcload_client_requests_total', 'client')).toEqual(expected((c) => c.sent));
  expect(sumBy(last, 'rpcload_client_rate_limited_total', 'client')).toEqual(expected((c) => c.refused));
  // Retry-After back-offs sat out: at least every honoured retry the ledger kept an observation of
  // (it keeps the first few per client; unjudgeable ones are counted here too), and time with them.
  const observed = result.rateLimit!.observations.filter((o) => o.kind === 'honoured_retry').length;
  const waits = sumBy(last, 'rpcload_retry_after_waits_total')['']!;
  expect(waits).toBeGreaterThanOrEqual(observed);
  expect(sumBy(last, 'rpcload_retry_after_wait_seconds_total')['']! > 0).toBe(waits > 0);
}

/** The schedule's rate was exposed while the steady phase ran, and 0 once the phases were over. */
function expectOfferedRate(scrapes: readonly Scrape[], steadyPerS: number): void {
  // One workload: one series, workload="default" (none before the load's first figures).
  const series = scrapes.map((s) => Object.keys(sumBy(s, 'rpcload_offered_arrivals_per_second', 'workload')));
  expect(series.at(-1)).toEqual(['default']);
  for (const names of series) expect(names.length === 0 || names.join() === 'default').toBe(true);
  const offered = scrapes.map((s) => sumBy(s, 'rpcload_offered_arrivals_per_second')[''] ?? 0);
  expect(Math.max(...offered)).toBeCloseTo(steadyPerS, 6);
  expect(offered.at(-1)).toBe(0);
}

/** Histogram buckets are cumulative: non-decreasing in `le`, `+Inf` equal to `_count`. */
function expectWellFormedHistograms(s: Scrape): void {
  for (const family of [
    'rpcload_request_latency_seconds',
    'rpcload_service_time_seconds',
    'rpcload_schedule_lag_seconds',
  ]) {
    const series = new Map<string, { le: number; value: number }[]>();
    for (const sample of s.samples.filter((x) => x.name === `${family}_bucket`)) {
      const { le, ...rest } = sample.labels;
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), { le: le === '+Inf' ? Infinity : Number(le), value: sample.value }]);
    }
    expect(series.size).toBeGreaterThan(0);
    for (const [key, buckets] of series) {
      const sorted = buckets.sort((a, b) => a.le - b.le);
      expect(sorted.length).toBe(DEFAULT_METRICS_BUCKETS_MS.length + 1);
      sorted.forEach((b, i) => expect(b.value).toBeGreaterThanOrEqual(i === 0 ? 0 : sorted[i - 1]!.value));
      const count = s.samples.find((x) => x.name === `${family}_count` && JSON.stringify(x.labels) === key)!;
      expect(sorted.at(-1)!.value).toBe(count.value);
    }
  }
}

function expectDocumentedMetrics(last: Scrape): void {
  const documented = documentedMetrics();
  expect(documented.size).toBeGreaterThanOrEqual(15);
  for (const [name, { type, labels }] of documented) {
    if (name.startsWith('rpcload_capacity_')) continue; // `capacity` only
    expect(last.types.get(name), name).toBe(type);
    const samples = last.samples.filter((s) => s.name === name || s.name.startsWith(`${name}_`));
    for (const sample of samples) {
      const names = Object.keys(sample.labels).filter((l) => l !== 'le');
      expect(names.sort(), name).toEqual([...labels, ...RUN_LABELS].sort());
    }
  }
  // nothing undocumented either
  for (const name of last.types.keys()) expect(documented.has(name), `${name} is in docs/metrics.md`).toBe(true);
}

/**
 * Clients at 30 requests/s each against a quota of 20 per second: 429s, honoured Retry-After waits.
 * A 1 s ramp then 2 s steady, or 3 s steady alone (`ramp: false`).
 */
function greedyProfile(target: string, clients: number, { ramp = true } = {}): Record<string, unknown> {
  const steady = { name: 'steady', duration: ramp ? '2s' : '3s', rate: 30 * clients };
  return {
    name: 'metrics-test',
    target,
    clients: { pattern: 'client-{n}', count: clients, secret: 'demo-secret' },
    scenarios: [
      { name: 'ping', weight: 2, steps: [{ method: 'ping' }] },
      { name: 'echo', weight: 1, steps: [{ method: 'echo', args: { message: 'hi' } }] },
    ],
    phases: ramp ? [{ name: 'ramp', duration: '1s', rate: { from: 20, to: 30 * clients } }, steady] : [steady],
    rateLimit: { limit: 20, window: '1s', on429: 'honour' },
  };
}

describe('--metrics-listen', { timeout: 60_000 }, () => {
  it('exposes every documented metric while a run goes, and its final counts equal the result file', async () => {
    server = await startServer({ limit: 20, windowMs: 1000 });
    const { result, scrapes } = await scrapedRun(greedyProfile(server.url, 2), 1);
    expect(result.run.status).toBe('completed');
    expect(scrapes.length).toBeGreaterThan(10);
    const last = scrapes.at(-1)!;
    // live: some scrape saw part of the run
    const totals = scrapes.map((s) => sumBy(s, 'rpcload_requests_total')[''] ?? 0);
    expect(totals.some((n) => n > 0 && n < result.summary.requests)).toBe(true);
    expect(
      last.samples.every(
        (s) => s.labels.run_id === result.run.id && s.labels.profile === 'metrics-test' && s.labels.shard === '1/1',
      ),
    ).toBe(true);
    expect(sumBy(last, 'rpcload_requests_total', 'phase')).toEqual({
      ramp: result.byPhase.ramp!.requests,
      steady: result.byPhase.steady!.requests,
    });
    expectMatchesResult(last, result);
    expectOfferedRate(scrapes, 60);
    expectWellFormedHistograms(last);
    expect(counterDecreases(scrapes)).toEqual([]);
    expectDocumentedMetrics(last);
  });

  it('adds up the figures of worker threads exactly (--workers 2), counters never decreasing', async () => {
    server = await startServer({ limit: 20, windowMs: 1000 });
    // No ramp: each worker posts its metrics once a second, so a ramp's end and a 2 s steady phase
    // left a starved machine's scrapes without one where both workers' figures came from the steady
    // phase (CI saw 60 + 57.4). Steady alone, both report their share from their first post on.
    const { result, scrapes } = await scrapedRun(greedyProfile(server.url, 4, { ramp: false }), 2, null, 2);
    expect(result.run).toMatchObject({ status: 'completed', workers: 2 });
    const last = scrapes.at(-1)!;
    // the plan's first two clients are labelled, though each worker carries one of them
    expectMatchesResult(last, result, ['client-1', 'client-2']);
    expectOfferedRate(scrapes, 120); // the workers' shares add up to the plan's rate
    expectWellFormedHistograms(last);
    expect(counterDecreases(scrapes)).toEqual([]);
  });

  it("labels a shard's series with the run id the shards share and its I/N", async () => {
    server = await startServer({ limit: 20, windowMs: 1000 });
    const { result, scrapes } = await scrapedRun(greedyProfile(server.url, 4), 1, {
      index: 2,
      count: 2,
      runId: 'metrics-shared-run',
    });
    const last = scrapes.at(-1)!;
    expect(result.run.shard).toMatchObject({ runId: 'metrics-shared-run', index: 2, count: 2 });
    expect(last.samples.every((s) => s.labels.run_id === 'metrics-shared-run' && s.labels.shard === '2/2')).toBe(true);
    // shard 2 of 2 carries every second client: client-2 and client-4
    expect(sumBy(last, 'rpcload_requests_total', 'outcome')).toEqual(result.summary.outcomes);
    expect(Object.keys(sumBy(last, 'rpcload_client_requests_total', 'client')).sort()).toEqual(['client-2', 'other']);
  });
});

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:9464', { host: '127.0.0.1', port: 9464 }],
    ['0.0.0.0:9464', { host: '0.0.0.0', port: 9464 }],
    ['9464', { host: '127.0.0.1', port: 9464 }],
    [':9464', { host: '127.0.0.1', port: 9464 }],
    ['[::1]:9464', { host: '::1', port: 9464 }],
    ['metrics.local:80', { host: 'metrics.local', port: 80 }],
    ['nonsense', null],
    ['127.0.0.1:0', null],
    ['127.0.0.1:65536', null],
    ['::1:9464', null],
    ['http://127.0.0.1:9464', null],
  ])('%s → %j', (text, address) => {
    expect(parseListenAddress(text)).toEqual(address);
  });
});

/**
 * Three workloads side by side — a rate with steps tagged kind:read, a closed flow tagged
 * kind:write, and a recording of 20 calls/s replayed at 2× from 0.3 s — scraped with
 * `--metrics-tag kind`.
 */
function workloadsProfile(target: string): Record<string, unknown> {
  const recording = join(dir, 'rec.jsonl');
  const calls = Array.from({ length: 60 }, (_, i) => ({ t: i * 50, client: 'client-1', method: 'ping', args: {} }));
  writeFileSync(recording, calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return {
    name: 'metrics-workloads',
    target,
    clients: { pattern: 'client-{n}', count: 4, secret: 'demo-secret' },
    scenarios: [
      { name: 'read', steps: [{ method: 'ping', tags: { kind: 'read' } }] },
      { name: 'write', steps: [{ method: 'echo', args: { message: 'hi' }, tags: { kind: 'write' } }] },
    ],
    workloads: [
      {
        name: 'browse',
        clients: ['client-1', 'client-2'],
        scenarios: ['read'],
        phases: [{ duration: '2s', rate: 30 }],
      },
      {
        name: 'orders',
        clients: ['client-3', 'client-4'],
        scenarios: ['write'],
        phases: [{ duration: '2s', concurrency: 1 }],
      },
      { name: 'recorded', replay: { file: recording, speed: 2 }, startAfter: '300ms' },
    ],
  };
}

describe('--metrics-listen with several workloads', { timeout: 60_000 }, () => {
  it('labels every request series with its workload (and the step tag asked for), and offers each workload’s own rate', async () => {
    server = await startServer({ limit: 100_000 });
    const { result, scrapes } = await scrapedRun(workloadsProfile(server.url), 1, null, 0, ['kind']);
    expect(result.run.status).toBe('completed');
    const last = scrapes.at(-1)!;
    const byWorkload = Object.fromEntries(Object.entries(result.byWorkload!).map(([name, w]) => [name, w.requests]));
    expect(Object.keys(byWorkload)).toEqual(['browse', 'orders', 'recorded']);
    expect(sumBy(last, 'rpcload_requests_total', 'workload')).toEqual(byWorkload);
    for (const h of ['rpcload_request_latency_seconds', 'rpcload_service_time_seconds'])
      expect(sumBy(last, `${h}_count`, 'workload')).toEqual(byWorkload);
    expect(Object.keys(sumBy(last, 'rpcload_schedule_lag_seconds_count', 'workload')).sort()).toEqual([
      'browse',
      'recorded',
    ]);
    // --metrics-tag kind: the step's value, '' for the replay's steps (they have no tags)
    expect(sumBy(last, 'rpcload_requests_total', 'tag_kind')).toEqual({
      read: result.byTag!['kind:read']!.requests,
      write: result.byTag!['kind:write']!.requests,
      '': byWorkload.recorded,
    });
    const labels = (name: string): string[] =>
      Object.keys(last.samples.find((x) => x.name === name)!.labels)
        .filter((l) => l !== 'le')
        .sort();
    expect(labels('rpcload_requests_total')).toEqual(
      ['method', 'outcome', 'phase', 'tag_kind', 'workload', ...RUN_LABELS].sort(),
    );
    expect(labels('rpcload_request_latency_seconds_bucket')).toEqual(
      ['method', 'phase', 'tag_kind', 'workload', ...RUN_LABELS].sort(),
    );
    expect(labels('rpcload_offered_arrivals_per_second')).toEqual(['workload', ...RUN_LABELS].sort());
    // The offered rate per workload: the schedule's 30/s, none for the closed flow, the recording's
    // 20 calls/s × 2 over its last second; all 0 once over.
    const offered = (workload: string): number[] =>
      scrapes.map((s) => sumBy(s, 'rpcload_offered_arrivals_per_second', 'workload')[workload] ?? 0);
    expect(Math.max(...offered('browse'))).toBeCloseTo(30, 6);
    expect(Math.max(...offered('orders'))).toBe(0);
    expect(Math.max(...offered('recorded'))).toBeGreaterThanOrEqual(24); // 40 due; scrapes of a loaded machine fall between
    expect(Math.max(...offered('recorded'))).toBeLessThanOrEqual(48);
    for (const w of ['browse', 'orders', 'recorded']) expect(offered(w).at(-1)).toBe(0);
    expect(
      Math.max(...scrapes.map((s) => sumBy(s, 'rpcload_achieved_requests_per_second', 'workload').orders ?? 0)),
    ).toBeGreaterThan(0);
    expect(counterDecreases(scrapes)).toEqual([]);
  });
});
