/**
 * Loads this machine cannot honour, refused before anything starts: an arrival rate, a number of
 * virtual users or of client IDs far beyond what one process can drive. Accepting them used to
 * mean a phase that never ends (`--rate 1e12`), a start-up that takes longer than the phase (1e8
 * virtual users) or minutes and gigabytes just to build the client list (10,000,000 clients).
 * Each refusal is one problem line: what was asked and what is feasible here.
 */
import { availableParallelism } from 'node:os';
import { peakOf } from './phase-load.ts';
import type { PhasePlan } from './plan.ts';
import type { Problem } from './problems.ts';

/** Arrivals per second one CPU can schedule and send, generously (rpcload sends ~20–50k/s per thread). */
const ARRIVALS_PER_S_PER_CPU = 100_000;
/** Virtual users one CPU can keep going (each is at most one request in flight). */
const VUS_PER_CPU = 50_000;
/** Client IDs a run can hold tokens for (each needs its own token before the load starts). */
export const MAX_CLIENTS = 100_000;

export interface MachineLimits {
  readonly maxRatePerS: number;
  readonly maxVus: number;
  readonly maxClients: number;
  readonly cpus: number;
}

/** What this machine can honour. */
export function machineLimits(cpus = availableParallelism()): MachineLimits {
  return { maxRatePerS: ARRIVALS_PER_S_PER_CPU * cpus, maxVus: VUS_PER_CPU * cpus, maxClients: MAX_CLIENTS, cpus };
}

const on = (limits: MachineLimits): string => `on this machine (${limits.cpus} CPU${limits.cpus === 1 ? '' : 's'})`;

/**
 * Problems for phases whose load cannot be honoured. `pointerOf(index, field)` names the place
 * (a profile path, or the flag that made the phase).
 */
export function infeasiblePhases(
  phases: readonly PhasePlan[],
  pointerOf: (index: number, field: 'rate' | 'concurrency') => string,
  limits: MachineLimits = machineLimits(),
): Problem[] {
  const problems: Problem[] = [];
  phases.forEach((phase, index) => {
    const { load } = phase;
    const peak = peakOf(load);
    if (load.kind === 'rate') {
      if (peak > limits.maxRatePerS)
        problems.push({
          path: pointerOf(index, 'rate'),
          message: `expected at most ${limits.maxRatePerS} arrivals per second (what rpcload can send ${on(limits)}), found ${peak}`,
        });
    } else if (load.kind === 'concurrency' && peak > limits.maxVus) {
      problems.push({
        path: pointerOf(index, 'concurrency'),
        message: `expected at most ${limits.maxVus} virtual users (what rpcload can keep going ${on(limits)}), found ${peak}`,
      });
    }
  });
  return problems;
}

/** A problem when a client count cannot be honoured (checked before any client is built). */
export function infeasibleClientCount(
  count: number,
  pointer: string,
  limits: MachineLimits = machineLimits(),
): Problem | null {
  if (count <= limits.maxClients) return null;
  return {
    path: pointer,
    message: `expected at most ${limits.maxClients} clients (each needs its own token before the load starts), found ${count}`,
  };
}
