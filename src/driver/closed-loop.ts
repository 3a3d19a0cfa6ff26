/**
 * Closed model: `vus` virtual users, each starting its next iteration as soon as the previous one
 * ends, until the phase's end. When every client of the workload is backing off, a user waits for
 * the first one to become available rather than spinning.
 */
import { safeTimeout } from '../util/timers.ts';
import type { LoadEngine } from './engine.ts';
import type { PhaseRun } from './release-loop.ts';

const IDLE_RECHECK_MS = 250;

export function runClosedPhase(
  engine: LoadEngine,
  phaseIndex: number,
  vus: number,
  phaseEndMs: number,
  now: () => number,
): PhaseRun {
  let active = true;
  const waits = new Set<NodeJS.Timeout>();
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  /** A user's next turn: its next iteration, or a wait for a client (each user loops through this one function). */
  const nextTurn = (): void => {
    if (!active) return;
    if (now() >= phaseEndMs) return stop();
    if (engine.startUser(phaseIndex, nextTurn)) return;
    const waitMs = Math.min(IDLE_RECHECK_MS, Math.max(1, engine.nextAvailabilityMs(phaseIndex) - now()));
    const wait = setTimeout(() => {
      waits.delete(wait);
      nextTurn();
    }, waitMs);
    waits.add(wait);
  };

  const stop = (): void => {
    if (!active) return;
    active = false;
    clearTimeout(endTimer);
    for (const wait of waits) clearTimeout(wait);
    finish();
  };

  const endTimer = safeTimeout(stop, phaseEndMs - now());
  // Users start together; a start-up that overruns the phase stops at its end.
  for (let i = 0; i < vus && active; i++) nextTurn();
  return { done, stop, offeredRatePerS: () => null };
}
