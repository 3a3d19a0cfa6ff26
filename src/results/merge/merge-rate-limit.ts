/**
 * The per-client rate-limit ledgers of shards. A client seen by several shards has its counts
 * summed; its periods move onto the merged clock (t + the shard's offset in whole seconds) and
 * periods that then start at the same second are summed, others kept apart — windows of shards
 * that started at different moments are not the same windows, and adding neighbouring ones would
 * fake an over-limit period. Observations move by the exact offset (ms).
 */
import type { RateLimitClient, RateLimitPeriod, RateLimitReport } from '../../contract/result-schema.ts';
import { sumCounts } from './merge-stats.ts';
import type { Shard } from './shard-set.ts';

function mergePeriods(lists: readonly (readonly RateLimitPeriod[])[]): RateLimitPeriod[] {
  const byT = new Map<number, RateLimitPeriod>();
  for (const period of lists.flat()) {
    const into = byT.get(period.t);
    byT.set(period.t, into ? { t: period.t, admitted: into.admitted + period.admitted, refused: into.refused + period.refused } : period);
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

export function mergeRateLimit(shards: readonly Shard[]): RateLimitReport | null {
  const withLedger = shards.filter((s) => s.result.rateLimit !== null);
  const first = withLedger[0]?.result.rateLimit;
  if (!first) return null;
  const parts = new Map<string, { client: RateLimitClient; offsetS: number }[]>();
  for (const { result, offsetS } of withLedger) {
    for (const [id, client] of Object.entries(result.rateLimit!.clients)) parts.set(id, [...(parts.get(id) ?? []), { client, offsetS }]);
  }
  const clients = Object.fromEntries(
    [...parts].map(([id, list]): [string, RateLimitClient] => [
      id,
      {
        sent: list.reduce((sum, p) => sum + p.client.sent, 0),
        admitted: list.reduce((sum, p) => sum + p.client.admitted, 0),
        refused: list.reduce((sum, p) => sum + p.client.refused, 0),
        periods: mergePeriods(list.map((p) => p.client.periods.map((period) => ({ ...period, t: period.t + p.offsetS })))),
        periodsTruncated: list.some((p) => p.client.periodsTruncated),
        retryAfterS: sumCounts(list.map((p) => p.client.retryAfterS)),
      },
    ]),
  );
  const observations = withLedger
    .flatMap(({ result, offsetMs }) => result.rateLimit!.observations.map((o) => ({ ...o, atMs: Math.round((o.atMs + offsetMs) * 1000) / 1000 })))
    .sort((a, b) => a.atMs - b.atMs);
  return { limit: first.limit, windowS: first.windowS, policy: first.policy, clients, observations };
}
