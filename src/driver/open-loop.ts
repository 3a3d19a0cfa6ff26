/**
 * Open model: start an iteration at each arrival of the phase, due at the pacer's time. One
 * timer loop releases whatever is due; a stalled event loop is caught up at a bounded rate
 * (releaseAtMs) and the stall is recorded as schedule lag, never hidden. The phase ends at its
 * duration, whatever is left of its arrivals: a backlog never stretches it, and what is left is
 * recorded as skipped.
 */
import type { LoadEngine } from './engine.ts';
import { releaseAtMs, type Pacer } from './pacer.ts';
import { ReleaseLoop, type PhaseRun } from './release-loop.ts';

/** Backlog catch-up speed, × the nominal rate. */
const CATCH_UP_FACTOR = 2;
/** Yield to I/O after this many arrivals in one tick, so responses keep being read. */
const MAX_ARRIVALS_PER_TICK = 512;
/**
 * A late tick may release at once what was due in this last stretch (at the catch-up rate); an
 * older backlog (a long GC pause, a blocked disk) follows at CATCH_UP_FACTOR. Long enough that a
 * loop that is merely late (a busy machine deschedules a process for tens of milliseconds, again
 * and again: CI once left a 3 s phase 200 ms behind) still delivers its whole schedule.
 */
const MAX_BURST_MS = 250;
/** Unsent arrivals counted one by one at most at a phase's end (a generator this far behind has told its story). */
const MAX_UNSENT_COUNTED = 1_000_000;

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

  function unsentFrom(first: number): number {
    let n = 0;
    while (n < MAX_UNSENT_COUNTED && phaseStartMs + pacer.dueOffsetMs(first + n) < phaseEndMs) n++;
    return n;
  }

  function tick(): void {
    const nowMs = now();
    for (let released = 0; ; released++) {
      const dueMs = phaseStartMs + pacer.dueOffsetMs(k);
      if (!(dueMs < phaseEndMs)) break; // no arrival left in the phase (or float noise at its very end)
      // After a stall, the backlog's spacing counts from (nearly) now, not from when its first
      // arrival was due, which would let the whole backlog out at once.
      const releaseMs = Math.max(
        releaseAtMs(dueMs, previousReleaseMs, dueMs - previousDueMs, CATCH_UP_FACTOR),
        nowMs - MAX_BURST_MS,
      );
      if (releaseMs > nowMs) return loop.wake(releaseMs);
      if (released === MAX_ARRIVALS_PER_TICK) return loop.wake(nowMs);
      engine.startArrival(phaseIndex, dueMs);
      previousDueMs = dueMs;
      previousReleaseMs = releaseMs;
      k++;
    }
    loop.released();
  }

  // Arrivals still owed at the phase's end (a backlog after a stall) are not sent: the phase is
  // over. They are counted as skipped, so that sent + skipped is always the schedule's count.
  const loop = new ReleaseLoop(now, tick, phaseEndMs, () => {
    if (loop.waiting) loop.tickNow(); // what is due by now and releasable goes out before the phase closes
    engine.recordUnsentAtPhaseEnd(phaseIndex, unsentFrom(k));
    loop.stop();
  });
  loop.wake(phaseStartMs);
  return {
    done: loop.done,
    stop: () => loop.stop(),
    offeredRatePerS: (nowMs) => pacer.rateAt(nowMs - phaseStartMs),
  };
}
