/**
 * Each client's first refusal as recorded in the passive ledger: a load run's view
 * of `ratelimit.threshold`.
 */
import { firstWindowCap, type LedgerClientData } from '../../metrics/ledger-data.ts';

/** How an idle client's first burst ended: the passive view of `ratelimit.threshold`. */
export interface FirstRefusal {
  readonly client: string;
  /** Send time of the client's first request and of its first refused one (ms since run start). */
  readonly firstRequestAtMs: number;
  readonly firstRefusalAtMs: number;
  /** Admitted requests sent before the first refusal. */
  readonly admitted: number;
  /** True when more were admitted than were tracked: `admitted` is a lower bound. */
  readonly atLeast: boolean;
  /** Requests sent before the refusal whose fate is unknown (transport failures); the server may have counted them. */
  readonly uncertain: number;
}

const countBelow = (ascending: readonly number[], limitExclusive: number): number => {
  let n = 0;
  while (n < ascending.length && ascending[n]! < limitExclusive) n++;
  return n;
};

/**
 * The client's first refusal, when its first 429 came less than one window after its first
 * request (later refusals say nothing about the threshold: windows may have reset meanwhile).
 * Counts are by send time, so completions that arrived out of order are placed correctly.
 */
export function firstRefusalOf(client: string, data: LedgerClientData, limit: number, windowMs: number): FirstRefusal | null {
  const { firstSentAtMs, firstRefusedSentAtMs } = data;
  if (firstSentAtMs === null || firstRefusedSentAtMs === null) return null;
  if (firstRefusedSentAtMs - firstSentAtMs >= windowMs) return null;
  const admitted = countBelow(data.firstWindowAdmittedSentAtMs, firstRefusedSentAtMs);
  return {
    client,
    firstRequestAtMs: firstSentAtMs,
    firstRefusalAtMs: firstRefusedSentAtMs,
    admitted,
    atLeast: admitted >= firstWindowCap(limit),
    uncertain: countBelow(data.firstWindowUnknownSentAtMs, firstRefusedSentAtMs),
  };
}

/** Every client's first refusal that qualifies, in client order. */
export function firstRefusals(clients: Readonly<Record<string, LedgerClientData>>, limit: number, windowMs: number): FirstRefusal[] {
  return Object.entries(clients).flatMap(([id, data]) => firstRefusalOf(id, data, limit, windowMs) ?? []);
}
