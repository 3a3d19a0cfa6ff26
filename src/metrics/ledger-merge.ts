/**
 * Merging the rate-limit ledgers of several parts (shards or worker threads) into one,
 * client by client and exactly.
 */
import type { RateLimitObservation } from '../contract/result-schema.ts';
import {
  MAX_PERIODS_PER_CLIENT,
  MAX_RETRY_AFTER_VALUES,
  observationFits,
  type LedgerClientData,
  type LedgerData,
  type LedgerPeriod,
} from './ledger-data.ts';

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

function mergePeriods(parts: readonly LedgerClientData[]): { periods: LedgerPeriod[]; truncated: boolean } {
  const byIndex = new Map<number, { admitted: number; refused: number }>();
  for (const p of parts.flatMap((part) => part.periods)) {
    const seen = byIndex.get(p.index) ?? { admitted: 0, refused: 0 };
    byIndex.set(p.index, { admitted: seen.admitted + p.admitted, refused: seen.refused + p.refused });
  }
  const periods = [...byIndex].sort(([a], [b]) => a - b).map(([index, counts]) => ({ index, ...counts }));
  return {
    periods: periods.slice(0, MAX_PERIODS_PER_CLIENT),
    truncated: periods.length > MAX_PERIODS_PER_CLIENT || parts.some((p) => p.periodsTruncated),
  };
}

function mergeRetryAfter(parts: readonly LedgerClientData[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, count] of parts.flatMap((p) => Object.entries(p.retryAfterS))) {
    const slot = key in out || Object.keys(out).length < MAX_RETRY_AFTER_VALUES ? key : 'other';
    out[slot] = (out[slot] ?? 0) + count;
  }
  return out;
}

function mergeObservations(parts: readonly LedgerClientData[]): RateLimitObservation[] {
  const kept: RateLimitObservation[] = [];
  const all = parts.flatMap((p) => p.observations).sort((a, b) => a.atMs - b.atMs);
  for (const o of all) if (observationFits(kept, o.kind, o.detail.admitted === true)) kept.push(o);
  return kept;
}

/**
 * One client's ledger from several parts (shards or worker threads that shared the client).
 * Announced windows do not merge: each part saw only some of the requests inside them.
 */
function mergeClient(parts: readonly LedgerClientData[]): LedgerClientData {
  const { periods, truncated } = mergePeriods(parts);
  const honoured = (key: keyof LedgerClientData['honoured']): number => sum(parts.map((p) => p.honoured[key]));
  return {
    sent: sum(parts.map((p) => p.sent)),
    admitted: sum(parts.map((p) => p.admitted)),
    refused: sum(parts.map((p) => p.refused)),
    periods,
    periodsTruncated: truncated,
    retryAfterS: mergeRetryAfter(parts),
    windows: [],
    windowsDropped: 0,
    windowsWithheld: true,
    honoured: {
      admitted: honoured('admitted'),
      refused: honoured('refused'),
      refusedEarly: honoured('refusedEarly'),
      unknown: honoured('unknown'),
    },
    missingRetryAfter: sum(parts.map((p) => p.missingRetryAfter)),
    observations: mergeObservations(parts),
  };
}

/**
 * Ledgers of several parts combined per client: counters and periods summed exactly (all parts
 * share the run's time origin); a client seen by one part keeps its announced windows, one split
 * over several has them withheld. The contract is taken from the first part. Null when no part
 * has a ledger.
 */
export function mergeLedgerData(parts: readonly (LedgerData | null)[]): LedgerData | null {
  const present = parts.filter((p): p is LedgerData => p !== null);
  const first = present[0];
  if (first === undefined) return null;
  const byClient = new Map<string, LedgerClientData[]>();
  for (const [id, data] of present.flatMap((p) => Object.entries(p.clients)))
    byClient.set(id, [...(byClient.get(id) ?? []), data]);
  const clients: Record<string, LedgerClientData> = {};
  for (const [id, list] of byClient) clients[id] = list.length === 1 ? list[0]! : mergeClient(list);
  return { limit: first.limit, windowMs: first.windowMs, policy: first.policy, clients };
}
