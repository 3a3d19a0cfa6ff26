/**
 * Iterations: each client of the workload runs `perClient` iterations, one after another ("each of
 * these users once"), then stops; the phase ends when every client is done, or at its duration
 * (the most it may last) with what is left counted as skipped. Closed model: latency counts from
 * each request's send. A client backing off after a 429 resumes when its Retry-After has passed; a
 * client without a token runs none (its iterations are counted as skipped).
 */
import { safeTimeout } from '../util/timers.ts';
import type { LoadEngine } from './engine.ts';
import type { PhaseRun } from './release-loop.ts';

/** A client that cannot send yet re-checks at least this often. */
const IDLE_RECHECK_MS = 250;

/** Why iterations a client never ran were not: its phase ended first, or it never had a token. */
export const SKIP_ITERATIONS_UNRUN = 'iterations left when the phase ended';
export const SKIP_NO_TOKEN = 'client has no token';

export function runIterationsPhase(
  engine: LoadEngine,
  phaseIndex: number,
  clients: readonly number[],
  perClient: number,
  phaseEndMs: number,
  now: () => number,
): PhaseRun {
  let active = true;
  let running = clients.length;
  const left = clients.map(() => perClient);
  const waits = new Set<NodeJS.Timeout>();
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const clientDone = (): void => {
    if (--running === 0) stop();
  };

  /** Client `i`'s next iteration, or a wait for its back-off to end. */
  const nextOf = (i: number): void => {
    if (!active) return;
    if (left[i] === 0) return clientDone();
    const client = clients[i]!;
    if (engine.startIteration(phaseIndex, client, () => nextOf(i))) {
      left[i]!--;
      return;
    }
    const availableAtMs = engine.clientAvailableAtMs(client);
    if (availableAtMs === Number.POSITIVE_INFINITY) {
      engine.recordSkipped(phaseIndex, SKIP_NO_TOKEN, left[i]!);
      left[i] = 0;
      return clientDone();
    }
    const wait = safeTimeout(
      () => {
        waits.delete(wait);
        nextOf(i);
      },
      Math.min(IDLE_RECHECK_MS, Math.max(1, availableAtMs - now())),
    );
    waits.add(wait);
  };

  const stop = (): void => {
    if (!active) return;
    active = false;
    clearTimeout(endTimer);
    for (const wait of waits) clearTimeout(wait);
    const unrun = left.reduce((sum, n) => sum + n, 0);
    engine.recordSkipped(phaseIndex, SKIP_ITERATIONS_UNRUN, unrun);
    finish();
  };

  const endTimer = safeTimeout(stop, phaseEndMs - now());
  if (clients.length === 0) stop();
  for (let i = 0; i < clients.length && active; i++) nextOf(i);
  return { done, stop, offeredRatePerS: () => null };
}
