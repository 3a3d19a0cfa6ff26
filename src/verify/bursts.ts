/**
 * The request patterns the rate-limit checks are made of. Most keep one request in flight at a
 * time: the server then sees them in send order, so counts map to its counter exactly, and a
 * counter that races under concurrency (ratelimit.concurrent_burst's business) cannot blur them.
 */
import type { ApiReply } from '../api/http-call.ts';
import type { RoundTrip } from './round-trip.ts';
import type { CallSpec, CheckContext, Observed } from './check-context.ts';
import { announcedResetMs } from './verdicts/window-bounds.ts';

export interface Run {
  /** In send order. */
  readonly roundTrips: readonly RoundTrip[];
  /** The first refusal received, when one came. */
  readonly refusal: RoundTrip | null;
  /** Why the run stopped: a refusal, a request without a limiter verdict, or the request cap. */
  readonly stop: 'refused' | 'failed' | 'cap';
  /** The reply of the last admitted request, and the one that ended the run (or the last). */
  readonly lastAdmittedReply: ApiReply | null;
  readonly lastReply: ApiReply | null;
}

/**
 * Send until the first refusal (or failure, or `maxRequests`), `concurrency` requests in flight
 * (default one at a time), to the target or `baseUrl` (a replica). `methodAt(i)` picks the method
 * of request i. Requests in flight when the run stops still complete and are part of it.
 */
export async function sendUntilRefused(
  check: CheckContext,
  clientId: string,
  maxRequests: number,
  methodAt: (index: number) => string,
  concurrency = 1,
  baseUrl?: string,
): Promise<Run> {
  const roundTrips: RoundTrip[] = [];
  let stop: Run['stop'] = 'cap';
  let refusal: RoundTrip | null = null;
  let lastAdmittedReply: ApiReply | null = null;
  let lastReply: ApiReply | null = null;
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (stop === 'cap' && sent < maxRequests) {
      const { roundTrip, reply } = await check.call({ method: methodAt(sent++), clientId, baseUrl });
      roundTrips.push(roundTrip);
      if (roundTrip.admission === 'admitted') lastAdmittedReply = reply;
      if (stop !== 'cap') continue;
      lastReply = reply;
      if (roundTrip.admission === 'refused') [stop, refusal] = ['refused', roundTrip];
      else if (roundTrip.admission === 'failed') stop = 'failed';
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  roundTrips.sort((a, b) => a.sentMs - b.sentMs);
  return { roundTrips, refusal, stop, lastAdmittedReply, lastReply };
}

/**
 * The first request after waiting for a reset: sent at `resetMs` (since the check started) and,
 * while still refused (a Retry-After rounded down), again every `intervalMs`, for at most one
 * more window. Returns every request sent; the last one is the admission, unless `stop` says why
 * there was none.
 */
export async function awaitReadmission(
  check: CheckContext,
  clientId: string,
  method: string,
  resetMs: number,
  intervalMs: number,
): Promise<{ readonly roundTrips: RoundTrip[]; readonly stop: 'admitted' | 'failed' | 'not-readmitted' }> {
  const roundTrips: RoundTrip[] = [];
  await check.until(resetMs);
  for (;;) {
    const { roundTrip } = await check.call({ method, clientId });
    roundTrips.push(roundTrip);
    if (roundTrip.admission !== 'refused') return { roundTrips, stop: roundTrip.admission };
    if (roundTrip.sentMs > resetMs + check.config.windowMs) return { roundTrips, stop: 'not-readmitted' };
    await check.until(roundTrip.sentMs + intervalMs);
  }
}

/**
 * Send at a fixed interval until `untilMs` (since the check started), one request in flight: a
 * late response delays only the next send, which then goes at once.
 */
export async function pacedLoad(
  check: CheckContext,
  clientId: string,
  method: string,
  intervalMs: number,
  untilMs: number,
): Promise<RoundTrip[]> {
  const roundTrips: RoundTrip[] = [];
  const startMs = check.elapsed();
  for (let sendAtMs = startMs; sendAtMs <= untilMs; sendAtMs += intervalMs) {
    await check.until(sendAtMs);
    roundTrips.push((await check.call({ method, clientId })).roundTrip);
  }
  return roundTrips;
}

/**
 * One request for a check that does not study the rate limit: when refused, wait what the
 * refusal announced (at least the contract's send interval, in case it said 0) and send it
 * again, for up to two windows. Returns the final reply and how many refusals were waited out.
 */
export async function callPolitely(
  check: CheckContext,
  spec: CallSpec,
): Promise<Observed & { readonly refusals: number }> {
  const { windowMs, limit } = check.config;
  const giveUpMs = check.elapsed() + 2 * windowMs;
  for (let refusals = 0; ; refusals++) {
    const observed = await check.call(spec);
    const { roundTrip } = observed;
    if (roundTrip.admission !== 'refused' || roundTrip.doneMs > giveUpMs) return { ...observed, refusals };
    await check.until(Math.max(announcedResetMs(roundTrip, windowMs), roundTrip.doneMs + windowMs / limit));
  }
}
