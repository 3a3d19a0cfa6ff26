/**
 * Real result files of a run with two workloads — `browse` (a rate of `ping`, tagged kind:read)
 * and `orders` (a concurrency of `work`, tagged kind:write) — made in this process against a
 * reference server: the whole run, or its shards (each `run --shard I/N` would carry the same
 * part of the plan), and the one result a single process would have written from the same
 * samples (the shards' recorded data merged exactly, as worker threads' data is).
 */
import { hostname } from 'node:os';
import type { RunResult, RunInfo } from '../../src/contract/result-schema.ts';
import { mergeRecordedData } from '../../src/metrics/merge-recorded.ts';
import type { RecordedData } from '../../src/metrics/recorded-data.ts';
import { describePlan } from '../../src/profile/describe-plan.ts';
import type { Plan } from '../../src/profile/plan.ts';
import { prepareReplays } from '../../src/profile/replay-plan.ts';
import { evaluateThreshold } from '../../src/profile/threshold-results.ts';
import { goodputLatencyBoundMs } from '../../src/profile/thresholds.ts';
import { planForShard } from '../../src/session/distributed/shard-spec.ts';
import { dimensionsOf } from '../../src/session/recorder-dimensions.ts';
import { buildRunResult } from '../../src/session/result/build-result.ts';
import { describeWorkloads } from '../../src/session/result/workload-section.ts';
import { runPlan, testPlan } from './load-run.ts';

/** The reference server options the profile expects: `work` fast and steady, no quota in the way. */
export const WORKLOAD_SERVER = { limit: 100_000, workLatency: { p50Ms: 2, p99Ms: 6 } } as const;

/** Two workloads side by side, 2 s each, with scoped thresholds (one of them an abortOnFail object). */
export function twoWorkloadProfile(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'shop',
    clients: { pattern: 'client-{n}', count: 6, secret: '${SECRET}' },
    scenarios: [
      { name: 'look', steps: [{ method: 'ping', tags: { kind: 'read' } }] },
      { name: 'order', steps: [{ method: 'work', tags: { kind: 'write' } }] },
    ],
    workloads: [
      {
        name: 'browse',
        clients: ['client-1', 'client-2', 'client-3'],
        scenarios: ['look'],
        phases: [{ duration: '2s', rate: 30 }],
      },
      {
        name: 'orders',
        clients: ['client-4', 'client-5', 'client-6'],
        scenarios: ['order'],
        phases: [{ duration: '2s', concurrency: 3 }],
      },
    ],
    thresholds: [
      'p99{workload:browse} < 5s',
      { threshold: 'error_rate{kind:write} < 1%', abortOnFail: true },
      'p95{workload:orders} < 5s',
      'requests{workload:orders} >= 1',
    ],
    ...overrides,
  };
}

/** A finished result as a run writes it: the plan described in `config`, its thresholds judged. */
function finished(plan: Plan, whole: Plan, result: RunResult, run: Partial<RunInfo> = {}): RunResult {
  const draft = { ...result, run: { ...result.run, ...run }, config: describePlan(whole) };
  return { ...draft, thresholds: plan.thresholds.map((t) => evaluateThreshold(t, draft)) };
}

export interface ShardedWorkloadRun {
  readonly plan: Plan;
  /** Each shard's result file, as `run --shard I/N --run-id RUN` writes it. */
  readonly shards: RunResult[];
  /** What one process would have written from the same samples. */
  readonly single: RunResult;
}

/** The profile run as `count` shards side by side against `baseUrl`, and the single-process result of their samples. */
export async function runShardedWorkloads(
  baseUrl: string,
  count: number,
  profile = twoWorkloadProfile(),
): Promise<ShardedWorkloadRun> {
  const plan = testPlan(profile, baseUrl);
  const parts = Array.from({ length: count }, (_, i) => planForShard(plan, { index: i + 1, count }));
  const runs = await Promise.all(parts.map((part) => runPlan(part, baseUrl)));
  const shards = runs.map((run, i) =>
    finished(parts[i]!, plan, run.result, {
      id: `shard-${i + 1}`,
      shard: {
        runId: 'workloads',
        index: i + 1,
        count,
        clients: parts[i]!.clients.length,
        startAt: null,
        startLateMs: null,
      },
    }),
  );
  const startedAt = shards.map((s) => s.run.startedAt).sort()[0]!;
  const endedAt = shards
    .map((s) => s.run.endedAt!)
    .sort()
    .at(-1)!;
  const single = singleResult(plan, mergeRecordedData(runs.map((r) => r.recorded)), {
    ...shards[0]!.run,
    startedAt,
    endedAt,
  });
  return { plan, shards, single: finished(plan, plan, single, { id: 'single' }) };
}

/** The result one process writes from `data`, with the whole plan's names. */
function singleResult(plan: Plan, data: RecordedData, run: RunInfo): RunResult {
  const { shard: _, ...info } = run;
  return buildRunResult({
    run: { ...info, host: hostname() },
    config: {},
    data,
    dims: dimensionsOf(plan),
    checks: [],
    thresholds: [],
    warnings: [],
    goodputBoundMs: goodputLatencyBoundMs(plan.thresholds),
    workloads: describeWorkloads(plan),
  });
}

/** The profile run once, whole, against `baseUrl` (its recordings read first): its result as `run` writes it. */
export async function runWorkloads(baseUrl: string, profile = twoWorkloadProfile()): Promise<RunResult> {
  const plan = await prepareReplays(testPlan(profile, baseUrl));
  const run = await runPlan(plan, baseUrl);
  return finished(plan, plan, run.result, { model: 'mixed' });
}
