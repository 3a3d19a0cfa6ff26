/**
 * The rate a profile's clients can send without exceeding their quotas: with `limit` requests per
 * `window` per client ID, arrivals spread by weight (smooth round-robin), the heaviest client
 * reaches its quota first. `rpcload capacity` never steps above this bound (minus 10 % headroom
 * for windows that straddle a step) unless the profile asks to include 429s, so the search never
 * measures the limiter and calls it the server's capacity.
 */
import type { Plan } from '../../profile/plan.ts';

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

export function quotaBound(plan: Plan): QuotaBound {
  const weights = plan.clients.map((c) => c.weight);
  const total = weights.reduce((a, b) => a + b, 0);
  const heaviest = Math.max(...weights);
  const perClientPerS = plan.rateLimit.limit / (plan.rateLimit.windowMs / 1000);
  const scenarioWeight = plan.scenarios.reduce((sum, s) => sum + s.weight, 0);
  const requestsPerIteration = plan.scenarios.reduce((sum, s) => sum + (s.weight / scenarioWeight) * s.steps.length, 0);
  const nominalPerS = (perClientPerS * total) / heaviest / requestsPerIteration;
  return {
    clients: plan.clients.length,
    perClientPerS,
    requestsPerIteration,
    nominalPerS,
    searchablePerS: nominalPerS * QUOTA_HEADROOM,
    skew: heaviest / (total / plan.clients.length),
  };
}

const figure = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** "capacity bound by client quotas: 24 clients × 10/s = 240/s; add client IDs …" */
export function quotaFinding(bound: QuotaBound): string {
  const skew = bound.skew > 1.001 ? ` (the heaviest client, ${figure(bound.skew)}× the mean weight, reaches its quota first)` : '';
  const perIteration = bound.requestsPerIteration > 1.001 ? ` at ${figure(bound.requestsPerIteration)} requests per iteration` : '';
  return `capacity bound by client quotas: ${bound.clients} clients × ${figure(bound.perClientPerS)}/s = ${figure(bound.nominalPerS)}/s${perIteration}${skew}; add client IDs, or set capacity.include429 to search past it`;
}
