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
import type { CapacityPlan } from '../../profile/capacity-settings.ts';
import type { Plan } from '../../profile/plan.ts';
import { combineChecks } from '../../verify/passive/combine-checks.ts';
import { buildRunResult } from '../result/build-result.ts';

/** One step as run: its phases' names and data, when its clock started, and the passive checks of its traffic. */
export interface StepData {
  /** Every phase of the step: the searched workload's warm-up and hold, then those of the workloads beside it. */
  readonly phases: readonly string[];
  /** The hold's phase: what the step's checks are labelled by. */
  readonly hold: string;
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

/**
 * Every step's data on the search's time line (origin: the first step's). The steps' selections
 * (each SLO line within each step's hold) were for judging the steps: the file keeps none.
 */
export function mergeSteps(steps: readonly StepData[], originEpochMs: number): RecordedData {
  const { bySelector: _, ...merged } = mergeRecordedData(
    steps.map((step) => shifted(step.data, step.originEpochMs - originEpochMs)),
  );
  return merged;
}

export interface CapacityResultInput {
  readonly run: RunInfo;
  readonly plan: Plan;
  /** The workload searched (index into the plan's). */
  readonly workload: number;
  readonly steps: readonly StepData[];
  readonly record: CapacityRecord;
  /** The SLO as judged on the confirmation (or the last passing step): thresholds of the file. */
  readonly thresholds: readonly ThresholdResult[];
  readonly warnings: readonly string[];
}

export function buildCapacityResult(input: CapacityResultInput): RunResult {
  const { plan, steps } = input;
  const origin = Date.parse(input.run.startedAt);
  const replay = plan.workloads[input.workload]?.replay;
  const draft = buildRunResult({
    run: input.run,
    config: {
      ...describePlan(plan),
      phases: [],
      capacity: plan.capacity === undefined ? null : capacityConfig(plan.capacity),
    },
    data: mergeSteps(steps, origin),
    dims: {
      methods: planMethods(plan),
      phases: steps.flatMap((s) => s.phases),
      clients: plan.clients.map((c) => c.id),
    },
    // Labelled by the step's hold phase, e.g. step-03.
    checks: combineChecks(
      steps.map((step) => ({ label: step.hold, checks: step.checks })),
      'byStep',
    ),
    thresholds: input.thresholds,
    warnings: input.warnings,
    // A replay's source, at the speed found (the steps' own speeds are in the capacity record).
    ...(replay === undefined ? {} : { replay: replaySource({ ...replay, speed: input.record.speed ?? replay.speed }) }),
  });
  // The whole search's schedule lag mixes every step; each step's own lag is judged (generator-bound)
  // in the capacity record, so the run-level lag warning would only mislead here.
  const warnings = draft.warnings.filter((w) => input.warnings.includes(w) || !w.startsWith('schedule lag p99'));
  return { ...draft, warnings, capacity: input.record };
}

/** The search's settings as the file's config records them: its SLO lines as written, without bookkeeping. */
function capacityConfig(cap: CapacityPlan): Record<string, unknown> {
  const { startGiven: _, ...settings } = cap;
  return { ...settings, slo: cap.slo?.map((line) => line.expr) ?? null };
}
