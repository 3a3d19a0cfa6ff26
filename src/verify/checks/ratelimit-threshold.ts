/**
 * The `ratelimit.threshold` check's procedure (bursts until refused, then continued load past the
 * reset), and the burst cap the other rate-limit checks share.
 */
import { awaitReadmission, pacedLoad, sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import type { CheckContext } from '../check-context.ts';
import { judgeThreshold, nextBurst, summarizeBurst } from '../verdicts/ratelimit-threshold.ts';
import type { BurstRecord, LoadRecord } from '../verdicts/threshold-records.ts';
import { announcedResetMs } from '../verdicts/window-bounds.ts';

/** Bursts after the idle one, at most: more only while each is ambiguous (see nextBurst). */
const MAX_RESET_BURSTS = 3;
/** Beyond a whole window after the last request, for the server to have seen it age out. */
const REST_MARGIN_MS = 50;
/** Sends after the reset the continued load waits for, so a re-admission (or its absence) is seen. */
const LOAD_TAIL_SENDS = 5;

/** Stop a burst that never gets refused (a server without a limit) after this many requests. */
export function burstCap(limit: number): number {
  return 2 * limit + 5;
}

/** A burst should last well under a second (see sliding logs in the verdict): this long at most. */
const TARGET_BURST_MS = 250;
const MAX_BURST_CONCURRENCY = 8;

/**
 * Requests in flight for a burst of `limit` at this round-trip time: one at a time on a fast
 * link (exact counts, no race), a few when one at a time would take too long (a slow network).
 */
export function burstConcurrency(limit: number, roundTripMs: number): number {
  return Math.min(MAX_BURST_CONCURRENCY, Math.max(1, Math.ceil((limit * roundTripMs) / TARGET_BURST_MS)));
}

/** The burst's first request, alone, at `startMs`: the re-admission after a reset, or the first of a rested client. */
async function opening(
  check: CheckContext,
  clientId: string,
  method: string,
  kind: BurstRecord['kind'],
  startMs: number,
  intervalMs: number,
): Promise<{ roundTrips: RoundTrip[]; stop: BurstRecord['stop'] | 'admitted' }> {
  if (kind === 'reset') return awaitReadmission(check, clientId, method, startMs, intervalMs);
  await check.until(startMs);
  const run = await sendUntilRefused(check, clientId, 1, () => method);
  return { roundTrips: [...run.roundTrips], stop: run.stop === 'cap' ? 'admitted' : run.stop };
}

/**
 * A burst until the first refusal. Its first request goes alone: it measures the round trip
 * (which sets the concurrency, unless `sequential`) and, after a reset, it is retried at the load
 * interval while still refused (a Retry-After rounded down), for at most one more window.
 */
async function burst(
  check: CheckContext,
  clientId: string,
  kind: BurstRecord['kind'],
  sequential: boolean,
  startMs: number,
  intervalMs: number,
): Promise<BurstRecord> {
  const { limit, methods } = check.config;
  const method = methods[0]!;
  const first = await opening(check, clientId, method, kind, startMs, intervalMs);
  if (first.stop !== 'admitted') return { kind, roundTrips: first.roundTrips, concurrency: 1, stop: first.stop };
  const opener = first.roundTrips.at(-1)!;
  const concurrency = sequential ? 1 : burstConcurrency(limit, opener.doneMs - opener.sentMs);
  const rest = await sendUntilRefused(check, clientId, burstCap(limit) - 1, () => method, concurrency);
  return { kind, roundTrips: [...first.roundTrips, ...rest.roundTrips], concurrency, stop: rest.stop };
}

/**
 * Load at twice the contract rate, ignoring 429s, from the end of the decisive burst until a few
 * sends past the reset its refusal streak must end by.
 */
async function continuedLoad(
  check: CheckContext,
  clientId: string,
  decisive: BurstRecord,
  intervalMs: number,
): Promise<LoadRecord> {
  const { windowMs, methods } = check.config;
  const { refusal } = summarizeBurst(decisive);
  const opener = decisive.roundTrips.find((e) => e.admission === 'admitted')!;
  const resetByMs = Math.max(announcedResetMs(refusal!, windowMs), opener.doneMs + windowMs);
  const roundTrips = await pacedLoad(
    check,
    clientId,
    methods[0]!,
    intervalMs,
    resetByMs + LOAD_TAIL_SENDS * intervalMs,
  );
  return { intervalMs, roundTrips };
}

export const ratelimitThreshold: CheckDefinition = {
  id: 'ratelimit.threshold',
  plan: (config) => ({ needs: [{ kind: 'fresh' }], countsQuota: true, estimateMs: 2 * config.windowMs }),
  async run(check, [clientId]) {
    const { limit, windowMs } = check.config;
    const intervalMs = windowMs / (2 * limit);
    const bursts = [await burst(check, clientId!, 'idle', false, 0, intervalMs)];
    for (
      let next = nextBurst(bursts, limit, windowMs);
      next !== null && bursts.length <= MAX_RESET_BURSTS;
      next = nextBurst(bursts, limit, windowMs)
    ) {
      const last = bursts.at(-1)!;
      // A reset: when the last refusal said; rested: a whole window after the last request.
      const startMs =
        next.kind === 'reset'
          ? announcedResetMs(summarizeBurst(last).refusal!, windowMs)
          : Math.max(...last.roundTrips.map((e) => e.doneMs)) + windowMs + REST_MARGIN_MS;
      bursts.push(await burst(check, clientId!, next.kind, next.sequential, startMs, intervalMs));
    }
    const decisive = bursts.at(-1)!;
    const load =
      bursts.length > 1 && decisive.stop === 'refused'
        ? await continuedLoad(check, clientId!, decisive, intervalMs)
        : null;
    return judgeThreshold({ limit, windowMs, bursts, load });
  },
};
