/**
 * The recorder's passive rate-limit ledger: per-client quota use gathered on the hot path,
 * serialized as LedgerData.
 */
import { RETRY_AFTER_ABSENT } from '../api/retry-after.ts';
import type { RateLimitContract } from '../contract/rate-limit.ts';
import type { RateLimitObservation } from '../contract/result-schema.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { roundMs } from './hdr.ts';
import { AnnouncedWindows } from './announced-windows.ts';
import {
  MAX_PERIODS_PER_CLIENT,
  MAX_RETRY_AFTER_VALUES,
  observationFits,
  type LedgerClientData,
  type LedgerData,
} from './ledger-data.ts';
import { NO_BACKOFF, type Sample } from './sample.ts';

class ClientLedger {
  sent = 0;
  admitted = 0;
  refused = 0;
  readonly periodIndex: number[] = [];
  readonly periodAdmitted: number[] = [];
  readonly periodRefused: number[] = [];
  periodsTruncated = false;
  readonly retryAfterS = new Map<string, number>();
  /** Created with the client's first request under a contract. */
  windows: AnnouncedWindows | null = null;
  readonly honoured = { admitted: 0, refused: 0, refusedEarly: 0, unknown: 0 };
  /** Total time sat out in the back-offs counted in `honoured` (ms). */
  honouredWaitedMs = 0;
  missingRetryAfter = 0;
  lastRetryAfterS = -1;
  lastRetryAfterAtMs = -1;
  readonly observations: RateLimitObservation[] = [];
}

/**
 * The passive rate-limit ledger: per client, what the server's limiter admitted and refused in
 * each contract window, the Retry-After values it announced, and what happened to clients that
 * waited them out. Fed from the recorder's hot path; counters and bounded lists only.
 * Without a contract (plan null) it keeps the per-client counters the live views show.
 */
export class RateLimitLedger {
  private readonly clients: ClientLedger[];
  private readonly windowMs: number;

  constructor(
    private readonly clientIds: readonly string[],
    private readonly plan: RateLimitContract | null,
  ) {
    this.clients = clientIds.map(() => new ClientLedger());
    this.windowMs = plan?.windowMs ?? 0;
  }

  record(s: Sample): void {
    const c = this.clients[s.clientIndex];
    if (c === undefined) return;
    c.sent++;
    // Passed the limiter: any response but 429 and 401 (authentication comes before the quota).
    const refused = s.status === 429;
    const admitted = !refused && s.status !== 401 && s.status !== 0;
    if (admitted) c.admitted++;
    if (refused) {
      c.refused++;
      this.noteRetryAfter(c, s);
    }
    if (s.backoffWaitedMs !== NO_BACKOFF) {
      c.honouredWaitedMs += s.backoffWaitedMs;
      this.noteHonouredRetry(c, s, admitted, refused);
    }
    if (this.windowMs <= 0) return;
    if (admitted || refused) this.countInPeriod(c, Math.floor(s.sentAtMs / this.windowMs), admitted);
    this.trackWindows(c, s, refused);
  }

  /** Per-client counters for the live views (index = client index). */
  client(
    index: number,
  ):
    | { sent: number; admitted: number; refused: number; lastRetryAfterS: number; lastRetryAfterAtMs: number }
    | undefined {
    return this.clients[index];
  }

  /** Back-offs sat out before a request, all clients: how many and the ms waited (read by the metrics, not per request). */
  retryAfterWaits(): { count: number; waitedMs: number } {
    let count = 0;
    let waitedMs = 0;
    for (const c of this.clients) {
      count += c.honoured.admitted + c.honoured.refused + c.honoured.refusedEarly + c.honoured.unknown;
      waitedMs += c.honouredWaitedMs;
    }
    return { count, waitedMs };
  }

  /** Admitted requests of a client in the contract window containing `nowMs`. */
  admittedInWindow(index: number, nowMs: number): number {
    const c = this.clients[index];
    if (c === undefined || this.windowMs <= 0) return 0;
    const period = Math.floor(nowMs / this.windowMs);
    const last = c.periodIndex.length - 1;
    return last >= 0 && c.periodIndex[last] === period ? c.periodAdmitted[last]! : 0;
  }

  serialize(): LedgerData | null {
    if (this.plan === null) return null;
    const clients: Record<string, LedgerClientData> = {};
    this.clients.forEach((c, i) => {
      if (c.sent === 0) return;
      clients[this.clientIds[i]!] = {
        sent: c.sent,
        admitted: c.admitted,
        refused: c.refused,
        periods: c.periodIndex.map((index, k) => ({
          index,
          admitted: c.periodAdmitted[k]!,
          refused: c.periodRefused[k]!,
        })),
        periodsTruncated: c.periodsTruncated,
        retryAfterS: Object.fromEntries(c.retryAfterS),
        windows: c.windows?.snapshot() ?? [],
        windowsDropped: c.windows?.dropped ?? 0,
        windowsWithheld: false,
        honoured: { ...c.honoured },
        missingRetryAfter: c.missingRetryAfter,
        observations: c.observations.map((o) => ({ ...o, detail: { ...o.detail } })),
      };
    });
    return { limit: this.plan.limit, windowMs: this.plan.windowMs, policy: this.plan.policy, clients };
  }

  private noteRetryAfter(c: ClientLedger, s: Sample): void {
    const valid = s.retryAfterS >= 0;
    const key = valid ? String(s.retryAfterS) : s.retryAfterS === RETRY_AFTER_ABSENT ? 'absent' : 'unparseable';
    const seen = c.retryAfterS.get(key);
    if (seen !== undefined) c.retryAfterS.set(key, seen + 1);
    else if (c.retryAfterS.size < MAX_RETRY_AFTER_VALUES) c.retryAfterS.set(key, 1);
    else c.retryAfterS.set('other', (c.retryAfterS.get('other') ?? 0) + 1);
    if (valid) {
      c.lastRetryAfterS = s.retryAfterS;
      c.lastRetryAfterAtMs = s.doneAtMs;
      return;
    }
    c.missingRetryAfter++;
    if (!observationFits(c.observations, 'missing_retry_after')) return;
    const detail = { retryAfter: key, outcome: sanitizeText(s.outcome, 100) };
    c.observations.push({
      client: this.clientIds[s.clientIndex]!,
      kind: 'missing_retry_after',
      atMs: roundMs(s.doneAtMs),
      detail,
    });
  }

  private noteHonouredRetry(c: ClientLedger, s: Sample, admitted: boolean, refused: boolean): void {
    const waitedFull = s.backoffWaitedMs >= s.backoffRetryAfterS * 1000;
    if (s.backoffRetryAfterS < 0 || (!admitted && !refused)) {
      c.honoured.unknown++;
      return;
    }
    if (admitted) c.honoured.admitted++;
    else if (waitedFull) c.honoured.refused++;
    else c.honoured.refusedEarly++;
    if (!observationFits(c.observations, 'honoured_retry', admitted)) return;
    // The refusal being honoured arrived `waited` ms before this send; where in the window was that?
    const refusalAtMs = Math.max(0, s.sentAtMs - s.backoffWaitedMs);
    const detail = {
      retryAfterS: s.backoffRetryAfterS,
      waitedMs: roundMs(s.backoffWaitedMs),
      waitedFull,
      admitted,
      status: s.status,
      refusalAtMs: roundMs(refusalAtMs),
      refusalPeriodOffsetMs: this.windowMs > 0 ? roundMs(refusalAtMs % this.windowMs) : null,
    };
    c.observations.push({
      client: this.clientIds[s.clientIndex]!,
      kind: 'honoured_retry',
      atMs: roundMs(s.sentAtMs),
      detail,
    });
  }

  private countInPeriod(c: ClientLedger, period: number, admitted: boolean): void {
    // Completions arrive roughly in send order: the period is almost always the last one.
    let k = c.periodIndex.length - 1;
    while (k >= 0 && c.periodIndex[k]! > period) k--;
    if (k < 0 || c.periodIndex[k] !== period) {
      if (c.periodIndex.length >= MAX_PERIODS_PER_CLIENT) {
        c.periodsTruncated = true;
        return;
      }
      k++;
      c.periodIndex.splice(k, 0, period);
      c.periodAdmitted.splice(k, 0, 0);
      c.periodRefused.splice(k, 0, 0);
    }
    if (admitted) c.periodAdmitted[k]!++;
    else c.periodRefused[k]!++;
  }

  /**
   * Feed the client's announced windows: refusals, admissions, and requests the limiter may or may
   * not have counted. Only an API reply in its envelope below 500 surely passed the limiter: a
   * transport failure, a proxy's page, a broken or server-error reply may stand for anything,
   * a refusal included.
   */
  private trackWindows(c: ClientLedger, s: Sample, refused: boolean): void {
    c.windows ??= new AnnouncedWindows(this.plan!.limit, this.windowMs);
    if (refused) return c.windows.refused(s.sentAtMs, s.doneAtMs, s.retryAfterS);
    if (s.status === 401) return;
    const surelyAdmitted =
      s.status > 0 && s.status < 500 && (s.outcome === 'success' || s.outcome.startsWith('error:'));
    c.windows.admitted(s.sentAtMs, s.doneAtMs, !surelyAdmitted);
  }
}
