/**
 * How one plan splits into parts — worker threads (`--workers N`) or shard processes
 * (`--shard I/N`): each part gets every N-th client (its own tokens, its own quota ledger), the
 * share of every phase's arrival rate and virtual users that its clients' weights carry (so every
 * client sends at the rate it would in one process), an even share of connections and the
 * in-flight cap, its own random seed, its own trace-id stream, and its share of the data files' rows
 * (row r of a set goes to the part with r % parts === part: splitting a split again composes, so
 * shards of workers still partition the rows). Pure; the parts add up to the whole.
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

/** Each part's share of the clients' total weight (the shares add up to 1). */
export function weightShares(clients: readonly ClientPlan[], count: number): number[] {
  const total = clients.reduce((sum, client) => sum + client.weight, 0);
  return Array.from({ length: count }, (_, index) => {
    const own = shardClients(clients, index, count);
    return total > 0 ? own.reduce((sum, client) => sum + client.weight, 0) / total : own.length / Math.max(1, clients.length);
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

/** Part `index`'s phases: its weight share of every rate, its apportioned virtual users. */
export function shardPhases(phases: readonly PhasePlan[], shares: readonly number[], index: number): PhasePlan[] {
  const share = shares[index]!;
  return phases.map((phase) => {
    const load = phase.load;
    if (load.kind === 'rate') return { ...phase, load: { kind: 'rate', fromPerS: load.fromPerS * share, toPerS: load.toPerS * share } };
    return { ...phase, load: { kind: 'concurrency', vus: apportion(load.vus, shares)[index]! } };
  });
}

/** The trace stream of part `index` (0-based) of a plan drawing from `stream`: the same shard, worker index + 1. */
export function traceStream(stream: number, index: number): number {
  return stream - (stream % 65_536) + index + 1;
}

/** Part `index` of `count` (0-based): what the main thread resolved (target, clients and their secrets included), in its share. */
export function shardPlan(plan: Plan, index: number, count: number): Plan {
  return {
    ...plan,
    clients: shardClients(plan.clients, index, count),
    phases: shardPhases(plan.phases, weightShares(plan.clients, count), index),
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
