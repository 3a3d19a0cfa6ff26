import { hostname } from 'node:os';
import { Recorder } from '../../src/metrics/recorder.ts';
import { dimensionsOf } from '../../src/session/recorder-dimensions.ts';
import { RunClock } from '../../src/driver/run-clock.ts';
import { runLoad, type LoadRunOutcome } from '../../src/driver/run-load.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import type { Plan } from '../../src/profile/plan.ts';
import { goodputLatencyBoundMs } from '../../src/profile/thresholds.ts';
import { buildRunResult } from '../../src/session/result/build-result.ts';
import { describeWorkloads } from '../../src/session/result/workload-section.ts';
import { withTestHttpClient } from './http-client.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import type { RecordedData } from '../../src/metrics/recorded-data.ts';

/** The reference server's demo clients: any `client-*` ID with this secret. */
export const DEMO_SECRET = 'demo-secret';

/**
 * A plan from an inline profile aimed at `target`, built through the real profile code path
 * (schema, defaults, templates); client secrets come from ${SECRET} like a real profile. The load
 * client is the test client (see http-client.ts) unless the profile names one.
 */
export function testPlan(profile: Record<string, unknown>, target: string): Plan {
  return buildPlan(
    withTestHttpClient({ clients: { pattern: 'client-{n}', count: 2, secret: '${SECRET}' }, ...profile, target }),
    {
      source: '',
      env: { SECRET: DEMO_SECRET },
    },
  );
}

export interface LoadRun {
  readonly outcome: LoadRunOutcome;
  readonly result: RunResult;
  readonly plan: Plan;
  /** What the recorder kept, e.g. its recent errors with their details. */
  readonly recorded: RecordedData;
}

/**
 * Run a plan against `baseUrl` in this process and build its result (status from the outcome).
 * `startClock`, when given, starts the clock in runLoad's place (to act at that very moment).
 */
export async function runPlan(
  plan: Plan,
  baseUrl: string,
  signal: AbortSignal = new AbortController().signal,
  startClock?: (clock: RunClock) => void,
): Promise<LoadRun> {
  const dims = dimensionsOf(plan);
  const recorder = new Recorder(dims, { rateLimit: plan.rateLimit });
  const clock = new RunClock();
  const startedAt = new Date().toISOString();
  const outcome = await runLoad({
    plan,
    baseUrl,
    recorder,
    clock,
    signal,
    graceMs: 500,
    ...(startClock === undefined ? {} : { startClock: () => Promise.resolve(startClock(clock)) }),
  });
  const recorded = recorder.serialize();
  const result = buildRunResult({
    run: {
      id: 'test',
      kind: 'run',
      profile: plan.name,
      startedAt,
      endedAt: new Date().toISOString(),
      status: outcome.status,
      target: baseUrl,
      embeddedTarget: false,
      model: 'open',
      workers: 1,
      shards: 1,
      node: process.version,
      host: hostname(),
    },
    config: {},
    data: recorded,
    dims,
    checks: [],
    thresholds: [],
    warnings: [],
    goodputBoundMs: goodputLatencyBoundMs(plan.thresholds),
    workloads: describeWorkloads(plan),
  });
  return { outcome, result, plan, recorded };
}
