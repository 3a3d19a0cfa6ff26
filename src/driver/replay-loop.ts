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
import type { PhaseRun } from './open-loop.ts';
import type { ReplayFeed } from './replay-feed.ts';

export interface ReplayPhaseOptions {
  /** The phase's calls, read ahead (made, and ready, before the run's clock started). */
  readonly feed: ReplayFeed;
  readonly phaseIndex: number;
  readonly phaseStartMs: number;
  readonly durationMs: number;
  readonly now: () => number;
}

/** Yield to I/O after this many calls in one tick, so responses keep being read. */
const MAX_CALLS_PER_TICK = 512;
/** After the phase's end, how long a reader still behind may take to hand over the calls due before it. */
const END_GRACE_MS = 2000;
/** Below this wait a timer is too coarse (≥ 1 ms granularity): spin on setImmediate instead. */
const SPIN_BELOW_MS = 1.5;

export function runReplayPhase(engine: LoadEngine, o: ReplayPhaseOptions): PhaseRun {
  const { feed, phaseStartMs, now } = o;
  const phaseEndMs = phaseStartMs + o.durationMs;
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let stopped = false;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const stop = (): void => {
    stopped = true;
    clearTimeout(endTimer);
    clearTimeout(graceTimer);
    if (timer !== null) {
      clearTimeout(timer as NodeJS.Timeout);
      clearImmediate(timer as NodeJS.Immediate);
    }
    feed.close();
    finish();
  };
  // At the phase's end, calls due before it that a late loop has not released yet go out now
  // (late, their lag recorded) rather than being lost; a reader that never catches up is given
  // END_GRACE_MS more.
  let ending = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const endTimer = safeTimeout(() => {
    ending = true;
    graceTimer = safeTimeout(stop, END_GRACE_MS);
    if (timer === null) tick();
  }, phaseEndMs - now());

  const wake = (atMs: number): void => {
    const waitMs = atMs - now();
    timer = waitMs >= SPIN_BELOW_MS ? safeTimeout(tick, waitMs - 1) : setImmediate(tick);
  };

  function tick(): void {
    timer = null;
    if (stopped) return;
    const nowMs = now();
    for (let released = 0; ; released++) {
      const call = feed.peek();
      if (call === undefined) {
        if (feed.exhausted) return stop();
        // Starved: the feed wakes the loop when it has read more.
        feed.whenMore(() => {
          if (!stopped && timer === null) wake(now());
        });
        return;
      }
      const dueMs = phaseStartMs + call.dueOffsetMs;
      if (!(dueMs < phaseEndMs)) return stop();
      if (dueMs > nowMs) return wake(dueMs);
      if (released === MAX_CALLS_PER_TICK && !ending) return wake(nowMs);
      feed.take();
      engine.startCall(o.phaseIndex, dueMs, call.clientIndex, call.scenarioIndex, call.body);
    }
  }

  wake(phaseStartMs);
  return { done, stop };
}
