/**
 * The `ratelimit.replicas` check's procedure: a client's quota spent through one route (the first
 * replica when there are two or more, else the target), then the same client through every other
 * route until its first refusal — at once, and again midway to the reset the refusal announced.
 */
import { sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { CheckContext } from '../check-context.ts';
import type { VerifyConfig } from '../config.ts';
import {
  judgeReplicas,
  spentResetFromMs,
  type Route,
  type RouteProbe,
  type RouteRun,
} from '../verdicts/ratelimit-replicas.ts';
import { burstCap } from './ratelimit-threshold.ts';

/** The second look needs this much time before the earliest reset, or it is left out. */
const MIN_LATER_LEAD_MS = 300;

/** The target, then the replicas numbered from 1 in the order given. */
export function routesOf(config: VerifyConfig): Route[] {
  return [
    { name: 'target', url: config.target },
    ...config.replicas.map((url, i) => ({ name: `replica ${i + 1}`, url })),
  ];
}

async function runThrough(check: CheckContext, clientId: string, route: Route): Promise<RouteRun> {
  const { limit, methods } = check.config;
  const run = await sendUntilRefused(check, clientId, burstCap(limit), () => methods[0]!, 1, route.url);
  return { route, roundTrips: run.roundTrips, stop: run.stop };
}

async function probeAll(
  check: CheckContext,
  clientId: string,
  routes: readonly Route[],
  round: RouteProbe['round'],
): Promise<RouteProbe[]> {
  const probes: RouteProbe[] = [];
  for (const route of routes) probes.push({ ...(await runThrough(check, clientId, route)), round });
  return probes;
}

export const ratelimitReplicas: CheckDefinition = {
  id: 'ratelimit.replicas',
  plan: (config) =>
    config.replicas.length === 0
      ? 'needs --replica URL (repeatable): each replica of the API reached directly (pod IPs, per-instance ports)'
      : { needs: [{ kind: 'fresh' }], countsQuota: true, estimateMs: config.windowMs / 2 },
  async run(check, [clientId]) {
    const { config } = check;
    const routes = routesOf(config);
    const spentRoute = config.replicas.length >= 2 ? routes[1]! : routes[0]!;
    const others = routes.filter((route) => route !== spentRoute);
    const spent = await runThrough(check, clientId!, spentRoute);
    const probes: RouteProbe[] = [];
    const resetFromMs = spentResetFromMs(spent, config.windowMs);
    if (spent.stop === 'refused' && resetFromMs !== null) {
      probes.push(...(await probeAll(check, clientId!, others, 'at once')));
      const refusal = spent.roundTrips.find((e) => e.admission === 'refused')!;
      const laterMs = (refusal.doneMs + resetFromMs) / 2;
      const healthy = probes.every((p) => p.stop !== 'failed');
      if (healthy && resetFromMs - Math.max(laterMs, check.elapsed()) >= MIN_LATER_LEAD_MS) {
        await check.until(laterMs);
        probes.push(...(await probeAll(check, clientId!, others, 'later')));
      }
    }
    return judgeReplicas({
      limit: config.limit,
      windowMs: config.windowMs,
      replicaCount: config.replicas.length,
      spent,
      probes,
    });
  },
};
