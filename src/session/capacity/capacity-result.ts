/**
 * The result file of a capacity search: the steps' recorded data laid end to end on the search's
 * time line (each step ran on its own clock), merged into one `rpcload/result@1` record whose
 * `byPhase` and `histograms.byPhase` hold every step's warm-up and hold, plus the `capacity`
 * record. The steps' rate-limit ledgers are not merged (each step's windows start at its own
 * origin), so the file has no `rateLimit` section; the quota bound is the search's own business.
 * The passive rate-limit checks each step judged on its own traffic are combined: a limiter that
 * admitted one request too many in any step fails the search's check.
 */
import type { CapacityRecord } from '../../contract/capacity-schema.ts';
import type { CheckResult, RunInfo, RunResult, ThresholdResult } from '../../contract/result-schema.ts';
import { replaySource } from '../../profile/replay-plan.ts';
import { planMethods } from '../../driver/compiled-plan.ts';
import { mergeRecordedData } from '../../metrics/merge-recorded.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import { emptyTimelineRow } from '../../metrics/timeline.ts';
import { describePlan } from '../../profile/describe-plan.ts';
import type { Plan } from '../../profile/plan.ts';
import type { ReplayPlan } from '../../profile/replay-settings.ts';
import { combineChecks } from '../../verify/passive/combine-checks.ts';
import { buildRunResult } from '../result/build-result.ts';

/** One step as run: its phases' names and data, when its clock started, and the passive checks of its traffic. */
export interface StepData {
  readonly phases: readonly string[];
  readonly data: RecordedData;
  /** Wall-clock origin of the step's clock (epoch ms). */
  readonly originEpochMs: number;
  readonly checks: readonly CheckResult[];
}

/** A step's data moved `offsetMs` later: its timeline padded with empty seconds in front. */
function shifted(data: RecordedData, offsetMs: number): RecordedData {
  const offsetS = Math.max(0, Math.round(offsetMs / 1000));
  const timeline = [
    ...Array.from({ length: offsetS }, (_, t) => emptyTimelineRow(t)),
    ...data.timeline.map((row) => ({ ...row, t: row.t + offsetS })),
  ];
  return { ...data, timeline, lastAtMs: data.lastAtMs + offsetMs, ledger: null };
}

/** Every step's data on the search's time line (origin: the first step's). */
export function mergeSteps(steps: readonly StepData[], originEpochMs: number): RecordedData {
  return mergeRecordedData(steps.map((step) => shifted(step.data, step.originEpochMs - originEpochMs)));
}

export interface CapacityResultInput {
  readonly run: RunInfo;
  readonly plan: Plan;
  readonly steps: readonly StepData[];
  readonly record: CapacityRecord;
  /** The SLO as judged on the confirmation (or the last passing step): thresholds of the file. */
  readonly thresholds: readonly ThresholdResult[];
  readonly warnings: readonly string[];
}

export function buildCapacityResult(input: CapacityResultInput): RunResult {
  const { plan, steps } = input;
  const origin = Date.parse(input.run.startedAt);
  const draft = buildRunResult({
    run: input.run,
    config: {
      ...describePlan(plan),
      phases: [],
      capacity: plan.capacity === undefined ? null : { ...plan.capacity, slo: plan.capacity.slo?.map((line) => line.expr) ?? null },
    },
    data: mergeSteps(steps, origin),
    dims: { methods: planMethods(plan), phases: steps.flatMap((s) => s.phases), clients: plan.clients.map((c) => c.id) },
    // Labelled by the step's hold phase (its last), e.g. step-03.
    checks: combineChecks(
      steps.map((step) => ({ label: step.phases.at(-1) ?? '', checks: step.checks })),
      'byStep',
    ),
    thresholds: input.thresholds,
    warnings: input.warnings,
    // A replay's source, at the speed found (the steps' own speeds are in the capacity record).
    ...(replayOf(plan) === undefined
      ? {}
      : { replay: replaySource({ ...replayOf(plan)!, speed: input.record.speed ?? replayOf(plan)!.speed }) }),
  });
  // The whole search's schedule lag mixes every step; each step's own lag is judged (generator-bound)
  // in the capacity record, so the run-level lag warning would only mislead here.
  const warnings = draft.warnings.filter((w) => input.warnings.includes(w) || !w.startsWith('schedule lag p99'));
  return { ...draft, warnings, capacity: input.record };
}

/** The replay of the plan's one workload searched, if it replays a recording. */
function replayOf(plan: Plan): ReplayPlan | undefined {
  return plan.workloads[0]?.replay;
}
