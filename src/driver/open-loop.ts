/**
 * Open model: start an iteration at each arrival of the phase, due at the pacer's time. One
 * timer loop releases whatever is due; a stalled event loop is caught up at a bounded rate
 * (releaseAtMs) and the stall is recorded as schedule lag, never hidden. The phase ends at its
 * duration, whatever is left of its arrivals: a backlog never stretches it.
 */
import type { LoadEngine } from './engine.ts';
import { safeTimeout } from '../util/timers.ts';
import { releaseAtMs, type Pacer } from './pacer.ts';

export interface PhaseRun {
  readonly done: Promise<void>;
  stop(): void;
}

/** Backlog catch-up speed, × the nominal rate. */
const CATCH_UP_FACTOR = 2;
/** Yield to I/O after this many arrivals in one tick, so responses keep being read. */
const MAX_ARRIVALS_PER_TICK = 512;
/** Below this wait a timer is too coarse (≥ 1 ms granularity): spin on setImmediate instead. */
const SPIN_BELOW_MS = 1.5;

export function runOpenPhase(
  engine: LoadEngine,
  phaseIndex: number,
  pacer: Pacer,
  durationMs: number,
  phaseStartMs: number,
  now: () => number,
): PhaseRun {
  const phaseEndMs = phaseStartMs + durationMs;
  let k = 0;
  let previousDueMs = phaseStartMs;
  let previousReleaseMs = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let stopped = false;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const stop = (): void => {
    stopped = true;
    clearTimeout(endTimer);
    if (timer !== null) {
      clearTimeout(timer as NodeJS.Timeout);
      clearImmediate(timer as NodeJS.Immediate);
    }
    finish();
  };
  // Arrivals still owed at the phase's end (a backlog after a stall) are not sent: the phase is over.
  const endTimer = safeTimeout(stop, phaseEndMs - now());

  const wake = (atMs: number): void => {
    const waitMs = atMs - now();
    timer = waitMs >= SPIN_BELOW_MS ? safeTimeout(tick, waitMs - 1) : setImmediate(tick);
  };

  function tick(): void {
    timer = null;
    if (stopped) return;
    const nowMs = now();
    for (let released = 0; ; released++) {
      const dueMs = phaseStartMs + pacer.dueOffsetMs(k);
      if (!(dueMs < phaseEndMs)) break; // no arrival left in the phase (or float noise at its very end)
      const releaseMs = releaseAtMs(dueMs, previousReleaseMs, dueMs - previousDueMs, CATCH_UP_FACTOR);
      if (releaseMs > nowMs) return wake(releaseMs);
      if (released === MAX_ARRIVALS_PER_TICK) return wake(nowMs);
      engine.startArrival(phaseIndex, dueMs);
      previousDueMs = dueMs;
      previousReleaseMs = releaseMs;
      k++;
    }
    finish();
  }

  wake(phaseStartMs);
  return { done, stop };
}
