// test-pass: quiet
/**
 * compare and trend per workload: which workloads are compared and which only one run has (pure,
 * tables), then result files of real runs with two workloads — one against a server whose `work`
 * got slower — through compareRuns, trend and the CLI. Quiet: the runs' latencies are compared (a
 * sub-millisecond p50 beside other test files moved by more than trend's noise floor).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { compareRuns, type Comparison, type MetricRow } from '../../src/results/compare/compare-runs.ts';
import { workloadPresence } from '../../src/results/compare/compare-workloads.ts';
import { DEFAULT_FAIL_ON, parseFailOnRules } from '../../src/results/compare/fail-on.ts';
import { renderComparisonMarkdown } from '../../src/results/compare/render-markdown.ts';
import { renderComparisonTable } from '../../src/results/compare/render-table.ts';
import { trendPoint, trendSeries } from '../../src/results/trend/trend-series.ts';
import { workloadTrend, type WorkloadPoint } from '../../src/results/trend/trend-workloads.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';
import { runWorkloads, twoWorkloadProfile, WORKLOAD_SERVER } from '../support/workload-runs.ts';

const counts = (requests: Record<string, number>) => Object.fromEntries(Object.entries(requests).map(([name, n]) => [name, { requests: n }]));

describe('which workloads compare puts side by side', () => {
  it.each([
    ['files without workloads', undefined, undefined, [], []],
    ['one workload in each, the same', { default: 5 }, { default: 7 }, [], []],
    ['the same two', { browse: 5, orders: 2 }, { orders: 3, browse: 6 }, ['orders', 'browse'], []],
    ['one added in head', { browse: 5, orders: 2 }, { browse: 6, orders: 3, extra: 9 }, ['browse', 'orders'], [['extra', 'head', 9]]],
    ['one dropped from head', { browse: 5, orders: 2 }, { browse: 6 }, ['browse'], [['orders', 'base', 2]]],
    ['an older base file', undefined, { browse: 6, orders: 1 }, [], [['browse', 'head', 6], ['orders', 'head', 1]]],
    ['one workload each, renamed', { a: 1 }, { b: 2 }, [], [['b', 'head', 2], ['a', 'base', 1]]],
  ] as const)('%s', (_, base, head, compared, inOneRun) => {
    const presence = workloadPresence(base === undefined ? undefined : counts(base), head === undefined ? undefined : counts(head));
    expect(presence.compared).toEqual(compared);
    expect(presence.inOneRun.map((w) => [w.name, w.run, w.requests])).toEqual(inOneRun);
  });
});

const point = (name: string, p99Ms: number, errorRate = 0, achievedPerS = 30): WorkloadPoint => ({
  name,
  achievedPerS,
  goodputPerS: achievedPerS * (1 - errorRate),
  p50Ms: 5,
  p99Ms,
  errorRate,
});
const history = (p99s: readonly number[]) => p99s.map((p99) => ({ workloads: [point('browse', p99), point('orders', 40)] }));

describe('trend of a workload', () => {
  it.each([
    ['steady', point('orders', 41), [], []],
    ['p99 up 50 %', point('orders', 60), ['p99'], []],
    ['p99 halved', point('orders', 20), [], ['p99']],
    ['2 % errors', point('orders', 40, 0.02), ['errors'], []],
    ['20 % errors', point('orders', 40, 0.2), ['goodput', 'errors'], []],
    ['half the rate', point('orders', 40, 0, 15), ['achieved', 'goodput'], []],
  ] as const)('%s, against 4 runs before it', (_, latest, worse, better) => {
    const trend = workloadTrend({ workloads: [point('browse', 10), latest] }, history([10, 11, 9, 10]))!;
    const orders = trend.rows.find((r) => r.name === 'orders')!;
    expect([orders.flags.map((f) => f.metric), orders.improvements.map((f) => f.metric), orders.history]).toEqual([worse, better, 4]);
    expect(trend.rows.find((r) => r.name === 'browse')!.flags).toEqual([]);
  });

  it.each([
    ['a workload new in the latest run', [point('browse', 10), point('orders', 40), point('extra', 5)], [['extra', 'latest']]],
    ['a workload gone from it', [point('browse', 10)], [['orders', 'before']]],
  ] as const)('reports %s on a line of its own, not judged', (_, latest, inOneRun) => {
    const trend = workloadTrend({ workloads: latest }, history([10, 10]))!;
    expect(trend.inOneRun.map((w) => [w.name, w.only])).toEqual(inOneRun);
    expect(trend.rows.map((r) => r.name)).toEqual(latest.map((w) => w.name));
  });

  it('says nothing per workload of runs with one workload, or of the first run', () => {
    expect(workloadTrend({ workloads: [point('default', 10)] }, [{ workloads: [point('default', 10)] }])).toBeUndefined();
    expect(workloadTrend({ workloads: [point('browse', 10), point('orders', 40)] }, [])).toEqual({
      rows: [expect.objectContaining({ name: 'browse', history: 0, flags: [] }), expect.objectContaining({ name: 'orders', history: 0 })],
      inOneRun: [],
    });
  });
});

type Server = Awaited<ReturnType<typeof startServer>>;
const dir = useTempDir('rpcload-compare-workloads-');
const servers: Server[] = [];
let base: RunResult;
let slower: RunResult;
let extra: RunResult;
const rules = parseFailOnRules(DEFAULT_FAIL_ON);
const compare = (a: RunResult, b: RunResult, force = false): Comparison =>
  compareRuns({ label: 'base.json', result: a }, { label: 'head.json', result: b }, { rules, force });
const workloadRows = (c: Comparison, workload: string): MetricRow[] =>
  c.rows.filter((r): r is MetricRow => r.type === 'metric' && r.workload === workload);
/** A third workload beside browse and orders: ping at 5/s. */
const withExtra = (): Record<string, unknown> => {
  const profile = twoWorkloadProfile();
  const extraWorkload = { name: 'extra', clients: ['client-1'], scenarios: ['look'], phases: [{ duration: '2s', rate: 5 }] };
  return { ...profile, workloads: [...(profile.workloads as unknown[]), extraWorkload] };
};

beforeAll(async () => {
  const fast = await startServer(WORKLOAD_SERVER);
  // orders' `work` 10× slower: its workload's latency regresses, browse's (ping) does not.
  const slow = await startServer({ ...WORKLOAD_SERVER, workLatency: { p50Ms: 40, p99Ms: 80 } });
  servers.push(fast, slow);
  // One after the other: on a shared machine, runs side by side would add each other's stalls to their latency.
  base = await runWorkloads(fast.url);
  slower = await runWorkloads(slow.url);
  extra = await runWorkloads(fast.url, withExtra());
  for (const [name, result] of [['base', base], ['slower', slower], ['extra', extra]] as const) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ ...result, run: { ...result.run, label: name } }));
  }
}, 40_000);
afterAll(async () => {
  for (const server of servers) await server.close();
});

describe('compare per workload, on real result files', () => {
  it('compares each workload’s achieved rate, goodput, p50, p99 and errors; --fail-on still gates the whole run', () => {
    const c = compare(base, slower);
    for (const name of ['browse', 'orders']) {
      expect(workloadRows(c, name).map((r) => [r.metric, r.method, r.rules])).toEqual(
        ['rps', 'goodput', 'p50', 'p99', 'errors'].map((metric) => [metric, null, []]),
      );
    }
    const ordersP50 = workloadRows(c, 'orders').find((r) => r.metric === 'p50')!;
    expect(ordersP50).toMatchObject({ base: base.byWorkload!.orders!.latencyMs.p50, head: slower.byWorkload!.orders!.latencyMs.p50 });
    // 10× slower: worse beyond any noise, yet only the run's own rows are regressions.
    expect(ordersP50.verdict).toBe('worse');
    expect(c.rows.filter((r) => r.verdict === 'regression').every((r) => r.type !== 'metric' || r.workload === undefined)).toBe(true);
    expect(c.regression).toBe(true);
    expect(c.workloadsInOneRun).toEqual([]);
    const table = renderComparisonTable(c, { color: false });
    expect(table).toMatch(/^workload orders\s+p50\s+.*\s+worse$/m);
    expect(renderComparisonMarkdown(c)).toMatch(/\| 🟡 \| workload `orders` \| p50 \|/);
  });

  it('reports a workload only one run has on a line, and compares the others', () => {
    const c = compare(base, extra);
    expect(c.workloadsInOneRun).toEqual([{ name: 'extra', run: 'head', requests: extra.byWorkload!.extra!.requests }]);
    expect(c.shapeDifferences).toEqual([]);
    expect(workloadRows(c, 'extra')).toEqual([]);
    expect(workloadRows(c, 'browse')).toHaveLength(5);
    expect(renderComparisonTable(c, { color: false })).toContain(`workload extra: only in head (${extra.byWorkload!.extra!.requests} requests), not compared`);
    // The other way round, it is the base's.
    expect(compare(extra, base).workloadsInOneRun.map((w) => [w.name, w.run])).toEqual([['extra', 'base']]);
  });

  it('still refuses a different load on the workloads both runs have', () => {
    const faster = structuredClone(extra);
    (faster.config.phases as { load: { fromPerS: number } }[])[0]!.load.fromPerS = 60;
    expect(() => compare(base, faster)).toThrow(/load shapes differ \(config\.phases\[0\]\.load\.fromPerS: 30 vs 60/);
  });

  it('trend judges the latest run’s workloads against the runs before it', () => {
    const series = trendSeries([base, base, slower].map((r, i) => trendPoint(`${i}.json`, { ...r, run: { ...r.run, startedAt: `2026-11-0${i + 1}T00:00:00Z` } })));
    const orders = series.workloads!.rows.find((r) => r.name === 'orders')!;
    expect(orders.flags.map((f) => f.metric)).toContain('p50');
    expect(series.workloads!.rows.find((r) => r.name === 'browse')!.flags.map((f) => f.metric)).not.toContain('p50');
  });
});

describe('rpcload compare and trend of real result files with workloads', () => {
  it('prints the workload rows, the workload only one file has, and exits on the whole run’s rules', async () => {
    const slowerRun = await runRpcload(['compare', join(dir, 'base.json'), join(dir, 'slower.json')]);
    expect(slowerRun.code, slowerRun.stderr).toBe(1);
    expect(slowerRun.stdout).toMatch(/^workload orders\s+p50\s+.*\s+worse$/m);
    const extraRun = await runRpcload(['compare', join(dir, 'base.json'), join(dir, 'extra.json'), '--fail-on', 'none']);
    expect(extraRun.code, extraRun.stderr).toBe(0);
    expect(extraRun.stdout).toMatch(/^workload extra: only in head \(\d+ requests\), not compared$/m);
    expect(extraRun.stdout).toMatch(/^workload browse\s+rps\s/m);
    const trend = await runRpcload(['trend', join(dir, 'base.json'), join(dir, 'extra.json')]);
    expect(trend.stdout).toContain('per workload, the latest run against the runs before it that had it:');
    expect(trend.stdout).toMatch(/^workload extra: only in the latest run, no history to judge it by$/m);
  }, 30_000);
});
