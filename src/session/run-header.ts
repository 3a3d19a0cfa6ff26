/**
 * What a run's live views are told up front: the profile, the target, the load and its phases,
 * and — for a run of several workloads or a replay — each workload's place on the clock and, for a
 * replay, what its progress is measured against.
 */
import type { ReplayInfo, RunHeader, WorkloadInfo } from '../contract/live-view.ts';
import { scheduleOf } from '../driver/workload-run.ts';
import { describeLoad } from '../profile/describe-plan.ts';
import { isOpenModel } from '../profile/phase-load.ts';
import type { Plan } from '../profile/plan.ts';
import { goodputLatencyBoundMs } from '../profile/thresholds.ts';

export function runHeader(plan: Plan, targetUrl: string, resultPath: string): RunHeader {
  const workloads = plan.workloads.map((_, w) => workloadInfo(plan, w));
  return {
    profile: plan.name,
    target: targetUrl,
    model: describeLoad(plan.phases),
    phases: plan.phases.map((phase) => ({
      name: phase.name,
      durationMs: phase.durationMs,
      load: describeLoad([phase]),
    })),
    // Workloads play side by side: the run lasts until the last one's end.
    totalDurationMs: Math.max(0, ...workloads.map((w) => w.endMs)),
    resultPath,
    rateLimit: { limit: plan.rateLimit.limit, windowMs: plan.rateLimit.windowMs },
    workloads,
    goodputBoundMs: goodputLatencyBoundMs(plan.thresholds),
  };
}

function workloadInfo(plan: Plan, index: number): WorkloadInfo {
  const workload = plan.workloads[index]!;
  const schedule = scheduleOf(plan, index);
  const replay = workload.replay;
  const info: ReplayInfo | undefined =
    replay === undefined
      ? undefined
      : {
          fileName: replay.facts.fileName,
          speed: replay.speed,
          loop: replay.loop,
          callsInWindow: replay.facts.callsInWindow,
          maxCalls: replay.maxCalls,
          passMs: replay.passMs / replay.speed,
        };
  return {
    name: workload.name,
    load: info === undefined ? describeLoad(schedule.map((s) => s.phase)) : `replay ×${info.speed}`,
    open: schedule.some((s) => isOpenModel(s.phase.load)),
    startMs: workload.startAfterMs,
    endMs: schedule.at(-1)?.endMs ?? workload.startAfterMs,
    ...(info === undefined ? {} : { replay: info }),
  };
}
