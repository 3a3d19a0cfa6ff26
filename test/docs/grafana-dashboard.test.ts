/**
 * The shipped Grafana dashboard (docs/grafana/rpcload.json): valid dashboard JSON on a Prometheus
 * data-source variable, with the panels docs/metrics.md promises, and every metric its PromQL
 * names is one a real run's /metrics actually serves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_METRICS_BUCKETS_MS } from '../../src/prometheus/metrics-snapshot.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import type { Profile } from '../../src/profile/profile-schema.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runSession } from '../../src/session/run-session.ts';
import { freePort, scrape, type Scrape } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

interface Target {
  readonly expr: string;
  readonly exemplar?: boolean;
  readonly datasource: { readonly type: string; readonly uid: string };
}
interface Panel {
  readonly type: string;
  readonly title: string;
  readonly targets?: readonly Target[];
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
}
interface Dashboard {
  readonly title: string;
  readonly uid: string;
  readonly schemaVersion: number;
  readonly panels: readonly Panel[];
  readonly templating: {
    readonly list: readonly { readonly name: string; readonly type: string; readonly query: unknown }[];
  };
}

const dashboard = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../docs/grafana/rpcload.json', import.meta.url)), 'utf8'),
) as Dashboard;
const targets = dashboard.panels.flatMap((p) => p.targets ?? []);
const exprs = targets.map((t) => t.expr);

let server: ServerHandle;
let last: Scrape;
const dir = useTempDir('rpcload-dashboard-');

beforeAll(async () => {
  // A short run with a 429 or two and per-client series, scraped during its linger.
  server = await startServer({ limit: 5, windowMs: 1000 });
  const port = await freePort();
  const plan = buildPlan(
    {
      name: 'dashboard-test',
      target: server.url,
      clients: { pattern: 'client-{n}', count: 2, secret: 'demo-secret' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
      phases: [{ name: 'only', duration: '1s', rate: 40 }],
      rateLimit: { limit: 5, window: '1s', on429: 'honour' },
    } as unknown as Profile,
    { source: '' },
  );
  let ended = false;
  const session = runSession({
    plan,
    outPath: join(dir, 'run.json'),
    signal: new AbortController().signal,
    createView: () => ({ start: () => undefined, stop: () => undefined }),
    metrics: { listen: { host: '127.0.0.1', port }, bucketsMs: DEFAULT_METRICS_BUCKETS_MS, clients: 1, lingerMs: 1000 },
  }).finally(() => (ended = true));
  const deadline = Date.now() + 30_000;
  while (!ended && Date.now() < deadline) {
    last = (await scrape(`http://127.0.0.1:${port}/metrics`).catch(() => null)) ?? last;
    await sleep(100);
  }
  const { metricsClosed } = await session;
  last = await scrape(`http://127.0.0.1:${port}/metrics`); // the final figures, while it lingers
  await metricsClosed;
}, 40_000);
afterAll(() => server.close());

describe('docs/grafana/rpcload.json', () => {
  it('is a Grafana dashboard on a Prometheus data-source variable, filtered by run, profile and shard', () => {
    expect(dashboard).toMatchObject({ title: 'rpcload', uid: 'rpcload-live' });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(30);
    const variables = dashboard.templating.list;
    expect(variables.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(variables.map((v) => v.name)).toEqual(expect.arrayContaining(['run_id', 'profile', 'shard']));
    expect(targets.length).toBeGreaterThan(15);
    for (const t of targets) {
      expect(t.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const label of ['run_id', 'profile', 'shard']) expect(t.expr, t.expr).toContain(`${label}=~"$${label}"`);
    }
    for (const p of dashboard.panels) expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
  });

  it('has the panels docs/metrics.md promises', () => {
    const has = (pattern: RegExp): boolean => exprs.some((e) => pattern.test(e));
    expect(has(/sum by \(outcome\) \(rate\(rpcload_requests_total/)).toBe(true); // throughput by outcome
    expect(has(/histogram_quantile\(0\.99, sum by \(le\) \(rate\(rpcload_request_latency_seconds_bucket/)).toBe(true);
    expect(has(/rate\(rpcload_rate_limited_total/)).toBe(true); // 429 rate
    expect(has(/rpcload_schedule_lag_seconds_bucket/)).toBe(true);
    expect(has(/rpcload_in_flight_requests/)).toBe(true);
    expect(has(/rpcload_token_requests_total/)).toBe(true);
    expect(has(/by \(le, shard\)/) && has(/sum by \(shard\)/)).toBe(true); // per-shard breakdown
  });

  it('shows exemplars on every latency and service-time panel, and only over histogram buckets', () => {
    const latencyPanels = dashboard.panels.filter((p) =>
      (p.targets ?? []).some((t) => /rpcload_(request_latency|service_time)_seconds_bucket/.test(t.expr)),
    );
    expect(latencyPanels.length).toBeGreaterThanOrEqual(4);
    for (const p of latencyPanels) expect(p.targets!.filter((t) => t.exemplar === true).length, p.title).toBe(1);
    for (const t of targets.filter((x) => x.exemplar === true))
      expect(t.expr).toMatch(/rpcload_(request_latency|service_time)_seconds_bucket/);
  });

  it('names only metrics a real run serves', () => {
    // Served: a sample, or a metric family the exposition declares (a labelled counter with no
    // series yet, e.g. no arrival skipped); a histogram family serves its _bucket, _sum and _count.
    const served = new Set(last.samples.map((s) => s.name));
    for (const [name, type] of last.types) {
      served.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) served.add(`${name}${suffix}`);
    }
    const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\brpcload_\w+/g)].map((m) => m[0])));
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) expect(served.has(name), `${name} (in the dashboard) is not served`).toBe(true);
  });
});
