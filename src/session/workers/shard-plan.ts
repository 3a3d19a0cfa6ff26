/**
 * How one plan splits into parts — worker threads (`--workers N`) or shard processes
 * (`--shard I/N`): each part gets every N-th client (its own tokens, its own quota ledger), and of
 * every workload the share of each phase's arrival rate and virtual users that its clients there
 * carry by their weights (so every client sends at the rate it would in one process; a workload of
 * iterations runs its clients' iterations where they are; a replay sends its callers' calls by the
 * part that has their client), an even share of connections and the in-flight cap, its own random
 * seed, its own trace-id stream, and its share of the data files' rows (row r of a set goes to the
 * part with r % parts === part: splitting a split again composes, so shards of workers still
 * partition the rows). Setup and teardown run once, outside the parts. Pure; the parts add up to
 * the whole.
 */
import type { ClientPlan, PhasePlan, Plan, WeightedIndex, WorkloadPlan } from '../../profile/plan.ts';

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

/** Each part's share of the clients' total weight (the shares add up to 1). */
export function weightShares(clients: readonly ClientPlan[], count: number): number[] {
  const total = clients.reduce((sum, client) => sum + client.weight, 0);
  return Array.from({ length: count }, (_, index) => {
    const own = shardClients(clients, index, count);
    return total > 0
      ? own.reduce((sum, client) => sum + client.weight, 0) / total
      : own.length / Math.max(1, clients.length);
  });
}

/**
 * `total` whole units over parts in proportion to `shares` (largest remainder, ties to the lower
 * index): the parts add up to `total` and each is within one of its exact share.
 */
export function apportion(total: number, shares: readonly number[]): number[] {
  const exact = shares.map((share) => total * share);
  const parts = exact.map(Math.floor);
  let left = total - parts.reduce((sum, n) => sum + n, 0);
  const byRemainder = exact
    .map((value, index) => ({ index, remainder: value - Math.floor(value) }))
    .sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of byRemainder) {
    if (left <= 0) break;
    parts[index]!++;
    left--;
  }
  return parts;
}

/** A phase's share for part `index`: its weight share of a rate, its apportioned virtual users; iterations and a replay as they are. */
export function shardPhase(phase: PhasePlan, shares: readonly number[], index: number): PhasePlan {
  const load = phase.load;
  switch (load.kind) {
    case 'rate':
      return {
        ...phase,
        load: { kind: 'rate', fromPerS: load.fromPerS * shares[index]!, toPerS: load.toPerS * shares[index]! },
      };
    case 'concurrency':
      return { ...phase, load: { kind: 'concurrency', vus: apportion(load.vus, shares)[index]! } };
    default:
      // Per client (iterations) or per caller (a replay): the part's clients carry their own.
      return phase;
  }
}

/** Each part's share of a workload's clients' weight (the shares add up to 1); its clients are every `count`-th of the plan's. */
function workloadShares(workload: WorkloadPlan, count: number): number[] {
  const total = workload.clients.reduce((sum, c) => sum + c.weight, 0);
  return Array.from({ length: count }, (_, part) => {
    const own = workload.clients.filter((c) => c.index % count === part);
    return total > 0
      ? own.reduce((sum, c) => sum + c.weight, 0) / total
      : own.length / Math.max(1, workload.clients.length);
  });
}

/** The trace stream of part `index` (0-based) of a plan drawing from `stream`: the same shard, worker index + 1. */
export function traceStream(stream: number, index: number): number {
  return stream - (stream % 65_536) + index + 1;
}

/** Part `index` of `count` (0-based): what the main thread resolved (target, clients and their secrets included), in its share. */
export function shardPlan(plan: Plan, index: number, count: number): Plan {
  // The part's clients are the plan's every count-th: client i becomes floor(i / count) here.
  const own = (c: WeightedIndex): boolean => c.index % count === index;
  const renumber = (c: WeightedIndex): WeightedIndex => ({ index: Math.floor(c.index / count), weight: c.weight });
  const shares = plan.workloads.map((workload) => workloadShares(workload, count));
  return {
    ...plan,
    clients: shardClients(plan.clients, index, count),
    workloads: plan.workloads.map((workload) => ({ ...workload, clients: workload.clients.filter(own).map(renumber) })),
    phases: plan.phases.map((phase) => shardPhase(phase, shares[phase.workload]!, index)),
    setup: null,
    teardown: null,
    http: {
      ...plan.http,
      connections: Math.max(1, evenShare(plan.http.connections, index, count)),
      maxInFlight: Math.max(1, evenShare(plan.http.maxInFlight, index, count)),
    },
    seed: plan.seed + index,
    dataPart: { index: plan.dataPart.index + plan.dataPart.count * index, count: plan.dataPart.count * count },
    // Trace ids stay unique across parts: each draws from its own stream (see driver/trace-context.ts).
    trace: { ...plan.trace, stream: traceStream(plan.trace.stream, index) },
  };
}
