/**
 * The rate a workload's clients can send without exceeding their quotas: with `limit` requests per
 * `window` per client ID, arrivals spread by weight (smooth round-robin), the heaviest client
 * reaches its quota first. `rpcload capacity` never steps above this bound (minus 10 % headroom
 * for windows that straddle a step) unless the profile asks to include 429s, so the search never
 * measures the limiter and calls it the server's capacity. A client the workload shares with
 * another spends its quota on both: the bound is the searched workload's alone, and the steps'
 * quota line catches what the others take from it.
 */
import type { Plan } from '../../profile/plan.ts';
import { groupThousands } from '../../util/number-format.ts';

/** Share of the nominal quota bound the search may use. */
export const QUOTA_HEADROOM = 0.9;

export interface QuotaBound {
  readonly clients: number;
  /** One client's quota, requests per second. */
  readonly perClientPerS: number;
  /** Requests one iteration makes (the weighted mean of the scenarios' steps; a paginated step counts once). */
  readonly requestsPerIteration: number;
  /** Iterations per second at which the heaviest client reaches its quota. */
  readonly nominalPerS: number;
  /** The search's ceiling: nominal × QUOTA_HEADROOM. */
  readonly searchablePerS: number;
  /** Weight of the heaviest client relative to the mean (1 when all weigh the same). */
  readonly skew: number;
}

/** The bound of workload `workload` of the plan: its clients and its scenarios, each with its weight there. */
export function quotaBound(plan: Plan, workload = 0): QuotaBound {
  const unit = plan.workloads[workload]!;
  const weights = unit.clients.map((c) => c.weight);
  const total = weights.reduce((a, b) => a + b, 0);
  const heaviest = Math.max(...weights);
  const perClientPerS = plan.rateLimit.limit / (plan.rateLimit.windowMs / 1000);
  const scenarioWeight = unit.scenarios.reduce((sum, s) => sum + s.weight, 0);
  const stepsOf = (index: number): number => plan.scenarios[index]!.steps.length;
  const requestsPerIteration = unit.scenarios.reduce(
    (sum, s) => sum + (s.weight / scenarioWeight) * stepsOf(s.index),
    0,
  );
  const nominalPerS = (perClientPerS * total) / heaviest / requestsPerIteration;
  return {
    clients: unit.clients.length,
    perClientPerS,
    requestsPerIteration,
    nominalPerS,
    searchablePerS: nominalPerS * QUOTA_HEADROOM,
    skew: heaviest / (total / unit.clients.length),
  };
}

const figure = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** "capacity bound by client quotas: 24 clients × 10/s = 240/s; add client IDs …" */
export function quotaFinding(bound: QuotaBound): string {
  const skew =
    bound.skew > 1.001 ? ` (the heaviest client, ${figure(bound.skew)}× the mean weight, reaches its quota first)` : '';
  const perIteration =
    bound.requestsPerIteration > 1.001 ? ` at ${figure(bound.requestsPerIteration)} requests per iteration` : '';
  return `capacity bound by client quotas: ${bound.clients} clients × ${figure(bound.perClientPerS)}/s = ${figure(bound.nominalPerS)}/s${perIteration}${skew}; add client IDs, or set capacity.include429 to search past it`;
}

/** Why the driver held an arrival back: its client was backing off after a 429 (the engine's words). */
export const QUOTA_SKIP_REASONS: readonly string[] = ['client backing off', 'all clients backing off'];

/** How a step used the clients' quotas: the arithmetic behind a `client quota` verdict. */
export interface QuotaUse {
  /** The contract: `limit` requests per `windowS` per client ID. */
  readonly limit: number;
  readonly windowS: number;
  /** Arrivals due in the measured hold: sent, or skipped for any reason. */
  readonly due: number;
  /** Refused with 429 in the hold. */
  readonly refused: number;
  /** Not sent in the hold because their client was backing off after a 429: the quota's, not the server's. */
  readonly heldBack: number;
  /** The client that sent the most over the step, and its rate (requests per second); null when not judged. */
  readonly busiest: { readonly id: string; readonly perS: number } | null;
}

/** The share of the hold's due arrivals the quotas stopped: refused, or held back while their client backed off. */
export function quotaShare(use: QuotaUse): number {
  return use.due > 0 ? (use.refused + use.heldBack) / use.due : 0;
}

/** The busiest client's rate as a share of its quota (1 = exactly its quota); 0 when not judged. */
export function busiestShareOfQuota(use: QuotaUse): number {
  return use.busiest === null ? 0 : use.busiest.perS / (use.limit / use.windowS);
}

const count = (n: number): string => groupThousands(n);

/**
 * The quota arithmetic of a step, in words. For a replay (`speed` given) the busiest client's
 * calls per second at 1× — measured where no call of it was stopped, `atOne`, when a step had none
 * — give the speed its quota allows: "app-1 sends 6.8 calls/s at 1× against its quota of 10/s (100
 * per 10 s): at most 1.47×"; then what the quotas stopped in the step.
 */
export function quotaUseText(
  use: QuotaUse,
  speed: number | null,
  atOne: { readonly id: string; readonly perS: number } | null = null,
): string {
  const perS = use.limit / use.windowS;
  const quota = `${figure(perS)}/s (${use.limit} per ${figure(use.windowS)} s)`;
  const parts: string[] = [];
  const busiest =
    speed !== null && speed > 0 && use.busiest !== null
      ? (atOne ?? { id: use.busiest.id, perS: use.busiest.perS / speed })
      : null;
  if (busiest !== null && busiest.perS > 0) {
    const bound = Math.floor((perS / busiest.perS) * 100) / 100;
    parts.push(
      `${busiest.id} sends ${figure(busiest.perS)} calls/s at 1× against its quota of ${quota}: at most ${bound}×`,
    );
  } else if (use.busiest !== null && busiestShareOfQuota(use) > 1) {
    parts.push(`${use.busiest.id} sent ${figure(use.busiest.perS)} requests/s against its quota of ${quota}`);
  }
  if (use.refused + use.heldBack > 0) {
    const share = `${(quotaShare(use) * 100).toFixed(1)} % of the ${count(use.due)} due`;
    parts.push(
      `${count(use.heldBack)} held back while their client backed off and ${count(use.refused)} refused: ${share}`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : `quota ${quota} per client`;
}

/**
 * The busiest client's calls per second at 1× of a replay, from the steps whose quotas stopped
 * nothing (a refused or held-back call would hide part of its rate); null when every step lost some.
 */
export function busiestAtOne(
  steps: readonly { readonly load: number; readonly quota: QuotaUse | null }[],
): { id: string; perS: number } | null {
  let best: { id: string; perS: number } | null = null;
  for (const { load, quota } of steps) {
    if (quota?.busiest == null || load <= 0 || quotaShare(quota) > 0) continue;
    const perS = quota.busiest.perS / load;
    if (best === null || perS > best.perS) best = { id: quota.busiest.id, perS };
  }
  return best;
}
