/**
 * How `--workers N` splits one plan over N worker threads: each worker gets every N-th client
 * (its own tokens, its own quota ledger), 1/N of every phase's arrival rate, an even share of the
 * virtual users, connections and in-flight cap, and its own random seed. Pure; the parts add up
 * to the whole (integer shares differ by at most one).
 */
import type { ClientPlan, PhasePlan, Plan } from '../../profile/plan.ts';

/** Share `total` of worker `index` of `count`: floor(total / count), the first total % count get one more. */
export function evenShare(total: number, index: number, count: number): number {
  return Math.floor(total / count) + (index < total % count ? 1 : 0);
}

/** Workers a plan can use: at most one per client (a client's quota lives in one worker). */
export function usableWorkers(requested: number, plan: Pick<Plan, 'clients'>): number {
  return Math.max(1, Math.min(requested, plan.clients.length));
}

/** The clients of worker `index`: every `count`-th, starting at `index`. */
export function shardClients(clients: readonly ClientPlan[], index: number, count: number): ClientPlan[] {
  return clients.filter((_, i) => i % count === index);
}

export function shardPhases(phases: readonly PhasePlan[], index: number, count: number): PhasePlan[] {
  return phases.map((phase) => {
    const load = phase.load;
    if (load.kind === 'rate') return { ...phase, load: { kind: 'rate', fromPerS: load.fromPerS / count, toPerS: load.toPerS / count } };
    return { ...phase, load: { kind: 'concurrency', vus: evenShare(load.vus, index, count) } };
  });
}

/** Worker `index`'s plan: what the main thread resolved (target, clients and their secrets included), in its share. */
export function shardPlan(plan: Plan, index: number, count: number): Plan {
  return {
    ...plan,
    clients: shardClients(plan.clients, index, count),
    phases: shardPhases(plan.phases, index, count),
    http: {
      ...plan.http,
      connections: Math.max(1, evenShare(plan.http.connections, index, count)),
      maxInFlight: Math.max(1, evenShare(plan.http.maxInFlight, index, count)),
    },
    seed: plan.seed + index,
  };
}
