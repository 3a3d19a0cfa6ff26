/**
 * `ratelimit.concurrent_burst`: 1.5 × limit requests in flight at once from an idle client
 * admit at most `limit`.
 */
import type { RoundTrip } from '../round-trip.ts';
import type { CheckOutcome, IdleCount } from '../check.ts';
import { fail, pass, skip } from '../verdict.ts';
import { boundaryMayFallInside, mayStraddleAfterReset } from './window-bounds.ts';

export interface ConcurrentAttempt {
  readonly kind: 'idle' | 'reset';
  /** All requests of the burst (sent together), in send order. */
  readonly roundTrips: readonly RoundTrip[];
}

export interface ConcurrentObservation {
  readonly limit: number;
  readonly windowMs: number;
  readonly attempts: readonly ConcurrentAttempt[];
}

function count(attempt: ConcurrentAttempt, admission: RoundTrip['admission']): number {
  return attempt.roundTrips.filter((e) => e.admission === admission).length;
}

/** The refusal decided first (received first): the best estimate of where the window stood. */
function firstRefusal(attempt: ConcurrentAttempt): RoundTrip | undefined {
  return attempt.roundTrips.filter((e) => e.admission === 'refused').sort((a, b) => a.doneMs - b.doneMs)[0];
}

/** Over the limit, but a window boundary may have fallen inside the burst: repeat right after the reset. */
export function concurrentAttemptIsAmbiguous(
  attempt: ConcurrentAttempt,
  previous: ConcurrentAttempt | undefined,
  limit: number,
  windowMs: number,
): boolean {
  const refusal = firstRefusal(attempt);
  if (refusal === undefined || count(attempt, 'admitted') <= limit) return false;
  if (attempt.kind === 'idle') return boundaryMayFallInside(attempt.roundTrips[0]!.sentMs, refusal, windowMs);
  const previousRefusal = previous && firstRefusal(previous);
  const endMs = Math.max(...attempt.roundTrips.map((e) => e.doneMs));
  return previousRefusal !== undefined && mayStraddleAfterReset(endMs, previousRefusal, windowMs);
}

/** The idle burst's count: its admissions, decided between its first send and its last response. */
export function idleBurstCount(obs: ConcurrentObservation): IdleCount | undefined {
  const idle = obs.attempts.find((a) => a.kind === 'idle');
  if (idle === undefined || idle.roundTrips.length === 0) return undefined;
  return {
    admitted: count(idle, 'admitted'),
    spanMs: Math.max(...idle.roundTrips.map((e) => e.doneMs)) - Math.min(...idle.roundTrips.map((e) => e.sentMs)),
    limit: obs.limit,
    windowMs: obs.windowMs,
  };
}

export function judgeConcurrentBurst(obs: ConcurrentObservation): CheckOutcome {
  const { limit, attempts } = obs;
  const describe = (a: ConcurrentAttempt): Record<string, unknown> => ({
    kind: a.kind,
    sent: a.roundTrips.length,
    sentWithinMs:
      Math.round(
        (Math.max(...a.roundTrips.map((e) => e.sentMs)) - Math.min(...a.roundTrips.map((e) => e.sentMs))) * 10,
      ) / 10,
    firstResponseAtMs: Math.min(...a.roundTrips.map((e) => e.doneMs)),
    lastResponseAtMs: Math.max(...a.roundTrips.map((e) => e.doneMs)),
    admitted: count(a, 'admitted'),
    refused: count(a, 'refused'),
    failed: count(a, 'failed'),
    retryAfterS: [...new Set(a.roundTrips.map((e) => e.retryAfterS).filter((s) => s !== null))],
  });
  const evidence = { limit, attempts: attempts.map(describe) };
  const decisive = attempts.at(-1);
  if (decisive === undefined || decisive.roundTrips.length === 0)
    return skip('inconclusive', 'no burst was sent', evidence);
  const admitted = count(decisive, 'admitted');
  const failed = decisive.roundTrips.filter((e) => e.admission === 'failed');
  const notes =
    attempts.length > 1
      ? [
          `an earlier burst admitted more than ${limit}, but a window boundary may have fallen inside it: repeated right after the reset`,
        ]
      : [];
  if (admitted > limit) {
    return {
      ...fail(
        `${admitted} of ${decisive.roundTrips.length} requests in flight at once were admitted; the limit is ${limit}`,
        evidence,
        notes,
      ),
      findings: { failedOnCount: true, idleCount: idleBurstCount(obs) },
    };
  }
  if (failed.length > 0)
    return skip(
      'target_broken',
      `${failed.length} of ${decisive.roundTrips.length} requests got no verdict from the limiter (${failed[0]!.outcome}); cannot count admissions`,
      evidence,
      notes,
    );
  if (admitted < limit) notes.push(`only ${admitted} admitted from an idle client (see ratelimit.threshold)`);
  return pass(
    `${admitted} of ${decisive.roundTrips.length} requests in flight at once were admitted (at most ${limit})`,
    evidence,
    notes,
  );
}
