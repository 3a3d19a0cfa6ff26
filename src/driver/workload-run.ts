/**
 * One workload on the run's clock: it waits for its start (`startAfterMs`), then plays its phases
 * back to back, each by its load kind — a rate (open-loop.ts), virtual users (closed-loop.ts),
 * iterations per client (iterations-loop.ts) or a recording (replay-loop.ts). Workloads run side by
 * side through one engine; each says what it offers at any moment (the live offered-rate gauge)
 * and which of its phases is playing.
 */
import type { PhasePlan, Plan } from '../profile/plan.ts';
import { createRandom } from '../util/random.ts';
import { safeTimeout } from '../util/timers.ts';
import { runClosedPhase } from './closed-loop.ts';
import type { LoadEngine } from './engine.ts';
import { runIterationsPhase } from './iterations-loop.ts';
import { runOpenPhase } from './open-loop.ts';
import { createPacer } from './pacer.ts';
import type { PhaseRun } from './release-loop.ts';
import type { ReplayFeed } from './replay-feed.ts';
import { runReplayPhase } from './replay-loop.ts';

/** Mixed into the run's seed for a Poisson phase's gaps (plus the phase's index). */
const PACER_SEED_MIX = 0x9e37_79b9;

/** A phase of a workload placed on the run's clock. */
export interface ScheduledPhase {
  readonly index: number;
  readonly phase: PhasePlan;
  readonly startMs: number;
  readonly endMs: number;
}

/** What the rest of the run sees of a playing workload. */
export interface WorkloadRun {
  /** Resolves when its last phase has ended (or it was stopped). */
  readonly done: Promise<void>;
  stop(): void;
  /** Arrivals per second it offers at `nowMs` (run clock): its playing phase's; 0 before its start, after its end, in a closed model. */
  offeredRatePerS(nowMs: number): number;
  /** A replay workload's calls released so far, over its phases; 0 for the other kinds. */
  released(): number;
}

/** A workload's phases on the clock, from its start: each begins where the one before ended. */
export function scheduleOf(plan: Plan, workload: number): ScheduledPhase[] {
  let startMs = plan.workloads[workload]!.startAfterMs;
  return plan.workloads[workload]!.phases.map((index) => {
    const phase = plan.phases[index]!;
    const scheduled = { index, phase, startMs, endMs: startMs + phase.durationMs };
    startMs = scheduled.endMs;
    return scheduled;
  });
}

export interface WorkloadRunOptions {
  readonly plan: Plan;
  readonly workload: number;
  readonly engine: LoadEngine;
  readonly now: () => number;
  /** Each replay phase's read-ahead of its recording, by phase index (made, and ready, before the clock started). */
  readonly feeds: ReadonlyMap<number, ReplayFeed>;
}

/** Start workload `workload` of the plan: its phases follow each other from its start on the clock. */
export function runWorkload(o: WorkloadRunOptions): WorkloadRun {
  const schedule = scheduleOf(o.plan, o.workload);
  let playing: PhaseRun | null = null;
  /** Calls its finished phases released (a replay), the one still `playing` counted once done. */
  let releasedBefore = 0;
  let playingCounted = false;
  let stopped = false;
  let wakeTimer: NodeJS.Timeout | undefined;
  let wakeUp = (): void => undefined;

  const play = async (): Promise<void> => {
    for (const scheduled of schedule) {
      // A phase begins at its place on the clock, also when the one before ended early (iterations done).
      if (o.now() < scheduled.startMs && !stopped)
        await new Promise<void>((resolve) => {
          wakeUp = resolve;
          wakeTimer = safeTimeout(resolve, scheduled.startMs - o.now());
        });
      if (stopped) return;
      const phase = startPhase(o, scheduled);
      playing = phase;
      playingCounted = false;
      await phase.done;
      releasedBefore += phase.released?.() ?? 0;
      playingCounted = true;
    }
  };
  const done = play().finally(() => (playing = null));
  return {
    done,
    stop: () => {
      stopped = true;
      clearTimeout(wakeTimer);
      wakeUp();
      playing?.stop();
    },
    offeredRatePerS: (nowMs) => {
      const at = schedule.find((scheduled) => nowMs >= scheduled.startMs && nowMs < scheduled.endMs);
      return at === undefined || playing === null ? 0 : (playing.offeredRatePerS(nowMs) ?? 0);
    },
    released: () => releasedBefore + (playingCounted ? 0 : (playing?.released?.() ?? 0)),
  };
}

/** One phase by its load kind. */
function startPhase(o: WorkloadRunOptions, { index, phase, startMs, endMs }: ScheduledPhase): PhaseRun {
  const { engine, now, plan } = o;
  const load = phase.load;
  switch (load.kind) {
    case 'rate': {
      // A Poisson phase draws its gaps from the seed and its index (a stream of its own).
      const pacer = createPacer(
        load,
        phase.durationMs,
        phase.arrivals,
        createRandom(plan.seed ^ (PACER_SEED_MIX + index)),
      );
      return runOpenPhase(engine, index, pacer, phase.durationMs, startMs, now);
    }
    case 'concurrency':
      return runClosedPhase(engine, index, load.vus, endMs, now);
    case 'iterations':
      return runIterationsPhase(
        engine,
        index,
        plan.workloads[o.workload]!.clients.map((c) => c.index),
        load.perClient,
        endMs,
        now,
      );
    case 'replay':
      return runReplayPhase(engine, {
        feed: o.feeds.get(index)!,
        phaseIndex: index,
        phaseStartMs: startMs,
        durationMs: phase.durationMs,
        now,
        scenarioOfMethod: plan.workloads[o.workload]!.scenarios.map((s) => s.index),
      });
  }
}
