/**
 * The result file's `rateLimit` section from the ledger: per-client counters and periods (`t` =
 * the period's start in whole seconds since run start) and the observations, announced windows
 * included, in time order.
 */
import type { LedgerData } from '../../metrics/ledger-data.ts';
import { roundMs } from '../../metrics/hdr.ts';
import { settledWindows, type ClientWindow } from '../../verify/passive/window-readings.ts';
import { windowEvidence } from '../../verify/passive/rate-limit-verdicts.ts';
import type { RateLimitClient, RateLimitObservation, RateLimitReport } from '../../contract/result-schema.ts';

/** Announced windows kept as observations per client: the failing ones first, then in time order. */
const WINDOW_OBSERVATIONS_PER_CLIENT = 5;

function windowObservations(windows: readonly ClientWindow[]): RateLimitObservation[] {
  const byClient = new Map<string, ClientWindow[]>();
  for (const w of windows) byClient.set(w.client, [...(byClient.get(w.client) ?? []), w]);
  const failing = (w: ClientWindow): boolean => w.reading === 'over' || w.reading === 'early';
  return [...byClient.values()].flatMap((list) =>
    [...list.filter(failing), ...list.filter((w) => !failing(w))].slice(0, WINDOW_OBSERVATIONS_PER_CLIENT).map((w) => ({
      client: w.client,
      kind: 'announced_window' as const,
      atMs: roundMs(w.window.refusedAtMs),
      detail: windowEvidence(w),
    })),
  );
}

export function rateLimitSection(ledger: LedgerData): RateLimitReport {
  const clients: Record<string, RateLimitClient> = {};
  for (const [id, c] of Object.entries(ledger.clients)) {
    clients[id] = {
      sent: c.sent,
      admitted: c.admitted,
      refused: c.refused,
      periods: c.periods.map((p) => ({
        t: Math.floor((p.index * ledger.windowMs) / 1000),
        admitted: p.admitted,
        refused: p.refused,
      })),
      periodsTruncated: c.periodsTruncated,
      retryAfterS: { ...c.retryAfterS },
    };
  }
  const observations = [
    ...windowObservations(settledWindows(ledger)),
    ...Object.values(ledger.clients).flatMap((c) => c.observations),
  ].sort((a, b) => a.atMs - b.atMs || a.client.localeCompare(b.client));
  return { limit: ledger.limit, windowS: ledger.windowMs / 1000, policy: ledger.policy, clients, observations };
}
