/**
 * What a refusal's Retry-After says about where the server's window boundaries are, allowing
 * for both roundings of whole seconds: with ceil (the honest reading) the reset lies in
 * (t + RA − 1 s, t + RA], with floor in [t + RA, t + RA + 1 s), where t is when the server
 * decided, somewhere between our send and our receipt.
 */
import type { RoundTrip } from '../round-trip.ts';

const ROUNDING_MS = 1000;

/**
 * When a refusal says the client may retry (same time base as the round trip): its receipt plus
 * Retry-After, or plus one contract window when it gave none.
 */
export function announcedResetMs(refusal: RoundTrip, windowMs: number): number {
  return refusal.doneMs + (refusal.retryAfterS === null ? windowMs : refusal.retryAfterS * 1000);
}

/**
 * Could a window boundary have fallen inside a burst from an idle client (first send at
 * `firstSentMs`, first refusal `refusal`)? A clock-aligned window can reset mid-burst and admit
 * more than `limit` without being wrong. Without Retry-After the boundary is unknown: yes.
 */
export function boundaryMayFallInside(firstSentMs: number, refusal: RoundTrip, windowMs: number): boolean {
  if (refusal.retryAfterS === null) return true;
  const resetMs = refusal.retryAfterS * 1000;
  const previousBoundaryEarliestMs = refusal.sentMs + resetMs - ROUNDING_MS - windowMs;
  const previousBoundaryLatestMs = refusal.doneMs + resetMs + ROUNDING_MS - windowMs;
  return previousBoundaryLatestMs > firstSentMs && previousBoundaryEarliestMs < refusal.doneMs;
}

/**
 * The earliest moment the reset a burst started after can have happened: after the last refusal
 * before it was decided and, by that refusal's Retry-After, later than its send + RA − 1 s.
 */
export function resetLowerBoundMs(lastRefusal: RoundTrip): number {
  return lastRefusal.retryAfterS === null
    ? lastRefusal.sentMs
    : Math.max(lastRefusal.sentMs, lastRefusal.sentMs + lastRefusal.retryAfterS * 1000 - ROUNDING_MS);
}

/**
 * Could the next boundary have fallen inside a burst that began right after a reset? Only when
 * the burst ended more than a window after the earliest that reset can have been (at windows of
 * a few seconds, never for a short burst; at 1 s windows the rounding of Retry-After leaves it open).
 */
export function mayStraddleAfterReset(burstEndMs: number, lastRefusalBefore: RoundTrip, windowMs: number): boolean {
  return burstEndMs > resetLowerBoundMs(lastRefusalBefore) + windowMs;
}

/**
 * Why a run's count proves nothing, if so: this machine sent too slowly for the limit to bite.
 * - With a refusal: the first `limit + 1` requests took a window or more, so the one after the
 *   limit may rightly have opened a new window.
 * - Without one: the run spread over so many windows (any alignment) that all its admissions fit
 *   within `limit` per window.
 * null when the count can be judged.
 */
export function tooSlowToJudge(roundTrips: readonly RoundTrip[], limit: number, windowMs: number): string | null {
  const first = roundTrips[0];
  if (first === undefined) return null;
  const slow = (count: number, spanMs: number, windows: number): string =>
    `the generator, not the server, is the bottleneck: ${count} requests took ${Math.round(spanMs)} ms to send, so they may span ${windows} windows of ${windowMs} ms`;
  if (roundTrips.some((e) => e.admission === 'refused')) {
    const deciding = roundTrips[Math.min(limit, roundTrips.length - 1)]!;
    const spanMs = deciding.sentMs - first.sentMs;
    return spanMs < windowMs ? null : slow(roundTrips.indexOf(deciding) + 1, spanMs, 2);
  }
  const spanMs = Math.max(...roundTrips.map((e) => e.doneMs)) - first.sentMs;
  const windows = Math.ceil(spanMs / windowMs) + 1;
  return roundTrips.filter((e) => e.admission === 'admitted').length > limit * windows
    ? null
    : slow(roundTrips.length, spanMs, windows);
}
