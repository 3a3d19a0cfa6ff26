/**
 * The result file's `rateLimit` section from the ledger: per-client counters and periods (`t` =
 * the period's start in whole seconds since run start) and the observations, first refusals
 * included, in time order.
 */
import { firstRefusals, type FirstRefusal } from '../../verify/passive/first-refusal.ts';
import type { LedgerData } from '../../metrics/ledger-data.ts';
import { roundMs } from '../../metrics/hdr.ts';
import { readThreshold } from '../../verify/passive/rate-limit-verdicts.ts';
import type { RateLimitClient, RateLimitObservation, RateLimitReport } from '../../contract/result-schema.ts';

function firstRefusalObservation(r: FirstRefusal, limit: number): RateLimitObservation {
  return {
    client: r.client,
    kind: 'first_refusal',
    atMs: roundMs(r.firstRefusalAtMs),
    detail: {
      admittedBeforeRefusal: r.admitted,
      atLeast: r.atLeast,
      uncertain: r.uncertain,
      firstRequestAtMs: roundMs(r.firstRequestAtMs),
      msToRefusal: roundMs(r.firstRefusalAtMs - r.firstRequestAtMs),
      reading: readThreshold(r, limit),
    },
  };
}

export function rateLimitSection(ledger: LedgerData): RateLimitReport {
  const clients: Record<string, RateLimitClient> = {};
  for (const [id, c] of Object.entries(ledger.clients)) {
    clients[id] = {
      sent: c.sent,
      admitted: c.admitted,
      refused: c.refused,
      periods: c.periods.map((p) => ({ t: Math.floor((p.index * ledger.windowMs) / 1000), admitted: p.admitted, refused: p.refused })),
      periodsTruncated: c.periodsTruncated,
      retryAfterS: { ...c.retryAfterS },
    };
  }
  const observations = [
    ...firstRefusals(ledger.clients, ledger.limit, ledger.windowMs).map((r) => firstRefusalObservation(r, ledger.limit)),
    ...Object.values(ledger.clients).flatMap((c) => c.observations),
  ].sort((a, b) => a.atMs - b.atMs || a.client.localeCompare(b.client));
  return { limit: ledger.limit, windowS: ledger.windowMs / 1000, policy: ledger.policy, clients, observations };
}
