/**
 * Running one step of a capacity search: its load against the target, what it needs watched while
 * it runs — the warm-up's skipped arrivals, the searched workload's responses within the hold
 * when other workloads run beside it, and the SLO lines that judge themselves live (abortOnFail:
 * the first to fail ends the step there, failed, and the search goes on) — then the step judged
 * on what it recorded.
 */
import type { RunInfo, RunStop } from '../../contract/result-schema.ts';
import type { MetricsReadOptions } from '../../prometheus/metrics-snapshot.ts';
import { watchAbortOnFail } from '../abort-on-fail.ts';
import { startLoad, type RunningLoad } from '../load.ts';
import { dimensionsOf } from '../recorder-dimensions.ts';
import { buildRunResult } from '../result/build-result.ts';
import { aimedAt, type Target } from '../target.ts';
import type { StepData } from './capacity-result.ts';
import { watchHoldCompletions } from './hold-completions.ts';
import { skippedInHold, watchWarmUpSkips } from './hold-skips.ts';
import { judgeStep, type JudgedStep, type StepRules } from './judge-step.ts';
import type { StepPlan } from './step-plan.ts';

export interface StepContext {
  readonly target: Target;
  readonly workers: number;
  readonly metrics: MetricsReadOptions | null;
  readonly rules: StepRules;
  /** The searched workload's name when others run beside it (its skips are its own); null when it runs alone. */
  readonly besideOf: string | null;
  /** The run record of the step's own result (its passive checks are judged on it), from its clock's origin. */
  runInfo(startedAtEpochMs: number): RunInfo;
  /** Told once the step's load has started. */
  started(running: RunningLoad): void;
}

export interface StepOutcome {
  readonly judged: JudgedStep;
  readonly data: StepData;
  /** The search's signal stopped the step: its figures are kept, its verdict means nothing. */
  readonly interrupted: boolean;
}

/**
 * The step's clock as seen from its hold: abortOnFail lines judge the hold only, their delay
 * counted from its start (negative times in the warm-up are never due).
 */
function holdClock(running: RunningLoad, warmUpMs: number): { readonly started: boolean; now(): number } {
  return {
    get started() {
      return running.clock.started;
    },
    now: () => running.clock.now() - warmUpMs,
  };
}

/** Run step `step` until it ends (or `signal` stops it) and judge it. */
export async function runStep(step: StepPlan, context: StepContext, signal: AbortSignal): Promise<StepOutcome> {
  const { def } = step;
  const plan = aimedAt(step.plan, context.target);
  const thresholdStop = new AbortController();
  const running = startLoad(plan, {
    workers: context.workers,
    signal: AbortSignal.any([signal, thresholdStop.signal]),
    metrics: context.metrics,
  });
  context.started(running);
  let stopped: RunStop | undefined;
  const live = plan.thresholds.filter((t) => t.abortOnFail);
  const unwatch = watchAbortOnFail(
    live,
    { clock: holdClock(running, def.warmUpMs), selections: () => running.selections() },
    (stop) => {
      stopped = stop;
      thresholdStop.abort();
    },
  );
  const warmUpSkips = watchWarmUpSkips(running, def.warmUpMs, context.besideOf);
  const completions =
    step.workloadSelection === null
      ? null
      : watchHoldCompletions(running, step.workloadSelection, def.warmUpMs, def.holdMs);
  const finished = await running.finished().finally(() => {
    unwatch();
    warmUpSkips.stop();
    completions?.stop();
  });
  const origin = running.clock.originEpochMs;
  const stepResult = buildRunResult({
    run: context.runInfo(origin),
    config: {},
    data: finished.data,
    dims: dimensionsOf(plan),
    checks: [],
    thresholds: [],
    warnings: [],
  });
  const stepSkips =
    context.besideOf === null ? finished.data.skipped : (finished.data.skippedByWorkload?.[context.besideOf] ?? {});
  const judged = judgeStep(def, context.rules, finished.data, stepResult, {
    skippedInHold: skippedInHold(stepSkips, warmUpSkips.beforeHold()),
    scheduledPerS: step.scheduledPerS,
    ...(completions === null ? {} : { completedInHold: completions.completed() }),
    ...(stopped === undefined ? {} : { stopped }),
  });
  const data: StepData = {
    phases: [...step.phases, ...plan.phases.filter((p) => !step.phases.includes(p))].map((p) => p.name),
    hold: def.phase,
    data: finished.data,
    originEpochMs: origin,
    checks: stepResult.checks,
  };
  return { judged, data, interrupted: finished.status === 'aborted' && (stopped === undefined || signal.aborted) };
}
