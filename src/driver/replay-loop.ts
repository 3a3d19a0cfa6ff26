/**
 * Replay: the open model's arrivals are a recording's calls, each due at its recorded offset ÷ the
 * speed (from the window's start, plus one pass per loop), sent by the client ID its caller maps
 * to with its recorded args (engine.startCall). The phase's feed (replay-feed.ts) has read the
 * recording ahead into a bounded queue before the clock started and keeps reading ahead of it;
 * one timer loop releases what is due, like the open loop (open-loop.ts), and what it releases
 * late shows as schedule lag, never hidden.
 */
import { safeTimeout } from '../util/timers.ts';
import type { LoadEngine } from './engine.ts';
import { ReleaseLoop, TrailingRate, type PhaseRun } from './release-loop.ts';
import type { ReplayFeed } from './replay-feed.ts';

export interface ReplayPhaseOptions {
  /** The phase's calls, read ahead (made, and ready, before the run's clock started). */
  readonly feed: ReplayFeed;
  readonly phaseIndex: number;
  readonly phaseStartMs: number;
  readonly durationMs: number;
  readonly now: () => number;
  /** The scenario (index into the plan's) of each of the recording's methods, by the method's index in the feed. */
  readonly scenarioOfMethod: readonly number[];
}

/** Yield to I/O after this many calls in one tick, so responses keep being read. */
const MAX_CALLS_PER_TICK = 512;
/** After the phase's end, how long a reader still behind may take to hand over the calls due before it. */
const END_GRACE_MS = 2000;

export function runReplayPhase(engine: LoadEngine, o: ReplayPhaseOptions): PhaseRun {
  const { feed, phaseStartMs, now } = o;
  const phaseEndMs = phaseStartMs + o.durationMs;
  const offered = new TrailingRate();
  /** Calls taken off the feed so far (each sent or skipped): the replay's progress. */
  let releasedCalls = 0;
  // At the phase's end, calls due before it that a late loop has not released yet go out now
  // (late, their lag recorded) rather than being lost; a reader that never catches up is given
  // END_GRACE_MS more.
  let ending = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearTimeout(graceTimer);
    feed.close();
    loop.stop();
  };

  function tick(): void {
    const nowMs = now();
    for (let released = 0; ; released++) {
      const call = feed.peek();
      if (call === undefined) {
        if (feed.exhausted) return stop();
        // Starved: the feed wakes the loop when it has read more.
        feed.whenMore(() => {
          if (!loop.isStopped && !loop.waiting) loop.wake(now());
        });
        return;
      }
      const dueMs = phaseStartMs + call.dueOffsetMs;
      if (!(dueMs < phaseEndMs)) return stop();
      if (dueMs > nowMs) return loop.wake(dueMs);
      if (released === MAX_CALLS_PER_TICK && !ending) return loop.wake(nowMs);
      feed.take();
      offered.add(dueMs);
      releasedCalls++;
      engine.startCall(o.phaseIndex, dueMs, call.clientIndex, o.scenarioOfMethod[call.scenarioIndex]!, call.body);
    }
  }

  const loop = new ReleaseLoop(now, tick, phaseEndMs, () => {
    ending = true;
    graceTimer = safeTimeout(stop, END_GRACE_MS);
    if (!loop.waiting) loop.tickNow();
  });
  loop.wake(phaseStartMs);
  return { done: loop.done, stop, offeredRatePerS: (nowMs) => offered.perS(nowMs), released: () => releasedCalls };
}
