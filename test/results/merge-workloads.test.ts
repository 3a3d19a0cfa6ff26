/**
 * merge per workload, on result files of real runs: shards of a run with two workloads (a rate and
 * a concurrency, with step tags and scoped thresholds) against the reference server, merged and
 * set against what one process would have written from the same samples.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { decodeHistogram } from '../../src/metrics/hdr.ts';
import { mergeRuns } from '../../src/results/merge/merge-runs.ts';
import { mergedPhases } from '../../src/results/merge/merge-workloads.ts';
import { startServer } from '../../src/server/start-server.ts';
import { skippedSteps } from '../../src/session/setup-run.ts';
import { runRpcload } from '../support/cli.ts';
import { DEMO_SECRET, testPlan } from '../support/load-run.ts';
import { schemaProblems } from '../support/result-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';
import { runShardedWorkloads, twoWorkloadProfile, WORKLOAD_SERVER, type ShardedWorkloadRun } from '../support/workload-runs.ts';

type Server = Awaited<ReturnType<typeof startServer>>;
const dir = useTempDir('rpcload-merge-workloads-');
let server: Server;
let run: ShardedWorkloadRun;
let merged: RunResult;

const labelled = (shards: readonly RunResult[]) => shards.map((result, i) => ({ label: `shard-${i + 1}.json`, result }));
const countOf = (encoded: string | undefined): number => (encoded === undefined ? 0 : decodeHistogram(encoded).totalCount);
/** A stats block without its rate: a merge divides by the span of the shards, one process by its own. */
const exact = <T extends { rps: number }>({ rps: _, ...rest }: T) => rest;

beforeAll(async () => {
  server = await startServer(WORKLOAD_SERVER);
  // A threshold only the union passes: every shard sends a third of browse's 60 arrivals.
  run = await runShardedWorkloads(server.url, 3, twoWorkloadProfile({ thresholds: [...(twoWorkloadProfile().thresholds as unknown[]), 'requests{workload:browse} >= 45'] }));
  merged = mergeRuns(labelled(run.shards));
}, 30_000);
afterAll(() => server.close());

const phase = (offeredPerS: number | null, achievedPerS: number, requests: number) => ({ name: 'p', requests, offeredPerS, achievedPerS });

describe('a workload’s phases across shards', () => {
  it.each([
    ['a rate: each shard offered its share', 'rate', [10, 10, 10], 30],
    ['a replay: each shard states the whole recording’s rate', 'replay', [20, 20, 20], 20],
    ['a concurrency: no offer', 'concurrency', [null, null], null],
  ] as const)('%s', (_, kind, offers, merged) => {
    const lists = offers.map((offered) => [phase(offered, 5, 10)]);
    expect(mergedPhases(lists, kind)).toEqual([phase(merged, 5 * offers.length, 10 * offers.length)]);
  });
});

describe('merge of shards with workloads', () => {
  it('equals the single-process figures per workload, tag and selection: requests, outcomes, percentiles, histogram counts', () => {
    const { single } = run;
    expect(schemaProblems(merged)).toEqual([]);
    for (const key of ['byWorkload', 'byTag', 'bySelector'] as const) {
      const names = Object.keys(single[key]!);
      expect(Object.keys(merged[key]!).sort()).toEqual([...names].sort());
      for (const name of names) {
        const own = single[key]![name]!;
        const mine = merged[key]![name]!;
        expect({ key, name, ...exact(mine) }).toEqual({ key, name, ...exact(own) });
        expect(mine.rps).toBeCloseTo(own.rps, 0);
        for (const kind of ['latency', 'serviceTime', 'scheduleLag'] as const) {
          const held = countOf((merged.histograms[key]?.[name] as Record<string, string> | undefined)?.[kind]);
          expect({ key, name, kind, held }).toEqual({ key, name, kind, held: countOf((single.histograms[key]?.[name] as Record<string, string> | undefined)?.[kind]) });
        }
      }
    }
    const browse = merged.byWorkload!.browse!;
    expect(browse.requests).toBe(run.shards.reduce((sum, s) => sum + s.byWorkload!.browse!.requests, 0));
    expect(countOf(merged.histograms.byWorkload!.orders!.latency)).toBe(merged.byWorkload!.orders!.requests);
  });

  it('adds each shard’s share of the offered and achieved rates per phase, the clients and the goodput', () => {
    const browse = merged.byWorkload!.browse!;
    const orders = merged.byWorkload!.orders!;
    // Each shard offered a third of browse's 30/s; together, the profile's rate.
    expect(run.shards.map((s) => s.byWorkload!.browse!.phases[0]!.offeredPerS)).toEqual([10, 10, 10]);
    expect(browse.phases).toEqual([{ name: 'phase-1', requests: 60, offeredPerS: 30, achievedPerS: 30 }]);
    expect(orders.phases[0]!.offeredPerS).toBeNull();
    expect(orders.phases[0]!.achievedPerS).toBeCloseTo(run.shards.reduce((sum, s) => sum + s.byWorkload!.orders!.phases[0]!.achievedPerS, 0), 6);
    expect([browse.clients, orders.clients]).toEqual([3, 3]);
    expect(orders.goodput!.requests).toBe(run.single.byWorkload!.orders!.goodput!.requests);
    expect(orders.goodput!.perS).toBeCloseTo(orders.goodput!.requests / merged.summary.durationS, 3);
  });

  it('judges the scoped thresholds again on the union, an abortOnFail one still saying so', () => {
    expect(run.shards.every((s) => s.thresholds.find((t) => t.expr === 'requests{workload:browse} >= 45')!.ok === false)).toBe(true);
    expect(merged.thresholds).toEqual(run.single.thresholds);
    expect(merged.thresholds.find((t) => t.expr === 'requests{workload:browse} >= 45')).toEqual({ expr: 'requests{workload:browse} >= 45', actual: 60, ok: true });
    expect(merged.thresholds.find((t) => t.expr === 'error_rate{kind:write} < 1%')).toMatchObject({ ok: true, abortOnFail: true });
    // p95 is no figure of the file: it is read off the merged selection's histogram.
    expect(merged.thresholds.find((t) => t.expr === 'p95{workload:orders} < 5s')!.actual).toBe(run.single.thresholds.find((t) => t.expr === 'p95{workload:orders} < 5s')!.actual);
  });

  it('merges a workload some files lack from the files that have it', () => {
    const [one, two, three] = run.shards as [RunResult, RunResult, RunResult];
    const { orders: _, ...browseOnly } = two.byWorkload!;
    const { orders: __, ...browseHistograms } = two.histograms.byWorkload!;
    const partial = mergeRuns(labelled([one, { ...two, byWorkload: browseOnly, histograms: { ...two.histograms, byWorkload: browseHistograms } }, three]));
    expect(partial.byWorkload!.orders!.requests).toBe(one.byWorkload!.orders!.requests + three.byWorkload!.orders!.requests);
    expect(countOf(partial.histograms.byWorkload!.orders!.latency)).toBe(partial.byWorkload!.orders!.requests);
    expect(partial.byWorkload!.browse!.requests).toBe(60);
  });

  it('refuses a workload with requests but no histograms: it cannot be merged exactly', () => {
    const [one, two, three] = run.shards as [RunResult, RunResult, RunResult];
    const { orders: _, ...browseHistograms } = two.histograms.byWorkload!;
    expect(() => mergeRuns(labelled([one, { ...two, histograms: { ...two.histograms, byWorkload: browseHistograms } }, three]))).toThrow(
      /^shard-2\.json: histograms\.byWorkload\["orders"\]: expected the histograms behind byWorkload\["orders"\], found none: cannot merge exactly$/,
    );
  });
});

describe('merge of what happened around the shards’ load', () => {
  const plan = testPlan(
    twoWorkloadProfile({ setup: { steps: [{ method: 'echo', args: { id: 7 }, save: { fixture: 'id' } }] }, teardown: { steps: [{ method: 'ping' }] } }),
    'http://127.0.0.1:9',
  );

  it('keeps one setup record of shards that took their values from a file, saying so', () => {
    const setup = skippedSteps(plan, 'setup', 'its values came from values.json', 'values.json');
    const teardown = skippedSteps(plan, 'teardown', 'setup ran elsewhere: run rpcload teardown with the same --setup-values');
    const out = mergeRuns(labelled(run.shards.map((s) => ({ ...s, setup, teardown }))));
    expect(out.setup).toEqual({ ...setup, reason: 'its values came from values.json (rpcload setup ran it once for every shard)' });
    expect(out.setup!.saved).toEqual(['fixture']);
    expect(out.teardown).toEqual(teardown);
    expect(out.warnings.filter((w) => /setup|teardown/.test(w))).toEqual([]);
    expect(schemaProblems(out)).toEqual([]);
  });

  it('adds up a setup that ran in several files, and warns that it ran more than once', () => {
    const ran = { ...skippedSteps(plan, 'setup', ''), status: 'ok' as const, requests: 1, outcomes: { success: 1 }, saved: ['fixture'] };
    const { reason: _, ...ok } = ran;
    const out = mergeRuns(labelled(run.shards.map((s, i) => (i === 2 ? s : { ...s, setup: ok }))));
    expect(out.setup).toMatchObject({ status: 'ok', requests: 2, outcomes: { success: 2 } });
    expect(out.warnings).toContain('setup ran in 2 of the merged files (shard-1.json, shard-2.json), not once: its requests are added up, its latency is shard-1.json\'s');
  });

  it('says a shard stopped itself on a threshold: the merged run is aborted, stopped at that moment of its clock', () => {
    const [one, two, three] = run.shards as [RunResult, RunResult, RunResult];
    const offsetMs = Date.parse(two.run.startedAt) - Math.min(...run.shards.map((s) => Date.parse(s.run.startedAt)));
    const stopped = { ...two, run: { ...two.run, status: 'aborted' as const, stop: { reason: 'threshold' as const, threshold: 'error_rate{kind:write} < 1%', atMs: 1000 } } };
    const out = mergeRuns(labelled([one, stopped, three]));
    expect(out.run.status).toBe('aborted');
    expect(out.run.stop).toEqual({ reason: 'threshold', threshold: 'error_rate{kind:write} < 1%', atMs: Math.round((1000 + offsetMs) * 1000) / 1000 });
    const twice = mergeRuns(labelled([one, stopped, { ...three, run: { ...three.run, status: 'aborted', stop: { reason: 'threshold', threshold: 'p99 < 1ms', atMs: 1500 } } }]));
    expect(twice.run.stop!.threshold).toBe('error_rate{kind:write} < 1%');
    expect(twice.warnings.find((w) => w.startsWith('2 shards stopped themselves on a threshold: shard-2.json at'))).toBeDefined();
  });
});

describe('rpcload merge of real shard files (--shard, --setup-values)', () => {
  it('adds the shards per workload exactly as the server counted them; a shard stopped by abortOnFail stops the merged run', async () => {
    const profile = twoWorkloadProfile({
      setup: { steps: [{ method: 'echo', args: { id: 7 }, save: { fixture: 'id' } }] },
      teardown: { steps: [{ method: 'ping' }] },
      // client-5 runs on shard 2 only: that shard alone stops itself, once its first request is in.
      thresholds: ['p99{workload:browse} < 5s', { threshold: 'requests{client:client-5} < 1', abortOnFail: true }],
    });
    const path = join(dir, 'shop.json');
    writeFileSync(path, JSON.stringify({ ...profile, target: server.url }));
    const env = { SECRET: DEMO_SECRET };
    const setup = await runRpcload(['setup', path, '--out', join(dir, 'values.json')], { env });
    expect(setup.code, setup.stderr).toBe(0);
    const before = server.stats().byClient;
    mkdirSync(join(dir, 'shards'));
    const shards = await Promise.all(
      [1, 2, 3].map((i) =>
        runRpcload(['run', path, '--shard', `${i}/3`, '--run-id', 'cli', '--setup-values', join(dir, 'values.json'), '--ui', 'none', '--out', join(dir, 'shards', `${i}.json`)], { env }),
      ),
    );
    expect(shards.map((s) => s.code)).toEqual([0, 1, 0]);
    const merge = await runRpcload(['merge', join(dir, 'shards'), '--out', join(dir, 'merged.json'), '--profile', path]);
    expect(merge.code, merge.stderr).toBe(1);
    const out = JSON.parse(readFileSync(join(dir, 'merged.json'), 'utf8')) as RunResult;
    expect(schemaProblems(out)).toEqual([]);
    const admitted = (ids: readonly string[]): number =>
      ids.reduce((sum, id) => sum + (server.stats().byClient[id]?.admitted ?? 0) - (before[id]?.admitted ?? 0), 0);
    expect(out.byWorkload!.browse!.requests).toBe(admitted(['client-1', 'client-2', 'client-3']));
    expect(out.byWorkload!.orders!.requests).toBe(admitted(['client-4', 'client-5', 'client-6']));
    for (const name of ['browse', 'orders']) expect(countOf(out.histograms.byWorkload![name]!.latency)).toBe(out.byWorkload![name]!.requests);
    expect(out.run).toMatchObject({ status: 'aborted', stop: { reason: 'threshold', threshold: 'requests{client:client-5} < 1' } });
    // Setup ran once, by rpcload setup: each shard says it took the values from the file, the merge keeps one record.
    const values = join(dir, 'values.json');
    expect(out.setup).toMatchObject({ status: 'skipped', requests: 0, saved: ['fixture'], fromFile: values });
    expect(out.setup!.reason).toBe(`its values came from ${values} (rpcload setup ran it once for every shard)`);
    expect(out.teardown).toMatchObject({ status: 'skipped', requests: 0 });
    expect(out.warnings.filter((w) => /setup|teardown/.test(w))).toEqual([]);
    expect(out.thresholds.map((t) => [t.expr, t.abortOnFail === true])).toEqual([
      ['p99{workload:browse} < 5s', false],
      ['requests{client:client-5} < 1', true],
    ]);
  }, 60_000);
});
