/**
 * The passive rate-limit ledger as plain, JSON-able data: what each client sent, what the
 * server's limiter admitted (any response but 429 and 401) and refused (429), per contract window
 * aligned to the run's start, the windows the server announced, and what is needed to judge the
 * Retry-After passively. Everything is bounded per client; counters merge exactly (see mergeLedgerData).
 */
import type { RateLimitObservation } from '../contract/result-schema.ts';
import type { WindowReading } from './window-reading.ts';

export interface LedgerData {
  readonly limit: number;
  readonly windowMs: number;
  readonly policy: 'honour' | 'ignore';
  /** By client id; only clients that sent something. */
  readonly clients: Readonly<Record<string, LedgerClientData>>;
}

/** Admitted/refused in one contract window; `index` = floor(sentAtMs / windowMs). */
export interface LedgerPeriod {
  readonly index: number;
  readonly admitted: number;
  readonly refused: number;
}

/** Retries sent after sitting out a Retry-After, by what came of them. */
export interface HonouredRetryCounts {
  readonly admitted: number;
  /** Refused although the client waited at least the Retry-After: the server's fault. */
  readonly refused: number;
  /** Refused after waiting less than the Retry-After: the client's fault, not evidence. */
  readonly refusedEarly: number;
  /** No verdict possible: transport failure, 401, or no Retry-After to honour. */
  readonly unknown: number;
}

export interface LedgerClientData {
  readonly sent: number;
  readonly admitted: number;
  readonly refused: number;
  /** Ascending by index; only windows with an admitted or refused request; capped. */
  readonly periods: readonly LedgerPeriod[];
  readonly periodsTruncated: boolean;
  /** Retry-After of the 429s: whole seconds → count, plus `absent`, `unparseable`, `other` (past the cap). */
  readonly retryAfterS: Readonly<Record<string, number>>;
  /**
   * One reading per window the server announced (a refusal streak and its Retry-After), in time
   * order: the first MAX_WINDOW_READINGS, then only over/early ones (see announced-windows.ts).
   */
  readonly windows: readonly WindowReading[];
  /** Readings past the cap that were not kept. */
  readonly windowsDropped: number;
  /** The client's traffic was split over several parts, so no part saw whole windows: no readings. */
  readonly windowsWithheld: boolean;
  readonly honoured: HonouredRetryCounts;
  /** 429s without a usable Retry-After. */
  readonly missingRetryAfter: number;
  /** honoured_retry and missing_retry_after observations, the first few of each (see the caps). */
  readonly observations: readonly RateLimitObservation[];
}

export const MAX_PERIODS_PER_CLIENT = 500;
export const MAX_RETRY_AFTER_VALUES = 32;
/** Observations kept per client: missing_retry_after, admitted and refused honoured retries. */
export const MAX_MISSING_OBSERVATIONS = 3;
export const MAX_ADMITTED_RETRY_OBSERVATIONS = 3;
export const MAX_REFUSED_RETRY_OBSERVATIONS = 5;

/** Whether another observation of this kind (and, for retries, this fate) fits under the per-client caps. */
export function observationFits(
  kept: readonly RateLimitObservation[],
  kind: RateLimitObservation['kind'],
  admitted = false,
): boolean {
  let same = 0;
  for (const o of kept) if (o.kind === kind && (o.detail.admitted === true) === admitted) same++;
  if (kind === 'missing_retry_after') return same < MAX_MISSING_OBSERVATIONS;
  if (kind === 'honoured_retry')
    return same < (admitted ? MAX_ADMITTED_RETRY_OBSERVATIONS : MAX_REFUSED_RETRY_OBSERVATIONS);
  return false;
}
