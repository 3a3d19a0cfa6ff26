/**
 * `ratelimit.all_methods`: ⌈limit/2⌉ requests on one method and ⌊limit/2⌋ on another are all
 * admitted, and the next one is refused: one quota across methods. Requests are sequential.
 */
import type { RoundTrip } from '../round-trip.ts';
import type { CheckOutcome, IdleCount } from '../check.ts';
import { fail, pass, skip } from '../verdict.ts';
import { withPerReplicaReading } from './per-replica-hint.ts';
import { boundaryMayFallInside, mayStraddleAfterReset, tooSlowToJudge } from './window-bounds.ts';

export interface MethodsAttempt {
  /** `idle`: from a rested client; `reset`: right after waiting for the previous attempt's reset. */
  readonly kind: 'idle' | 'reset';
  /** The halves, the next request, then (only when that was admitted) more until the first refusal. */
  readonly roundTrips: readonly RoundTrip[];
}

export interface AllMethodsObservation {
  readonly limit: number;
  readonly windowMs: number;
  readonly methods: readonly [string, string];
  readonly attempts: readonly MethodsAttempt[];
}

/**
 * Could the attempt's over-admission come from a window boundary inside it? Then it is not
 * judged and is repeated right after the reset.
 */
export function attemptIsAmbiguous(
  attempt: MethodsAttempt,
  previous: MethodsAttempt | undefined,
  limit: number,
  windowMs: number,
): boolean {
  const refusal = attempt.roundTrips.find((e) => e.admission === 'refused');
  const admitted = attempt.roundTrips.filter((e) => e.admission === 'admitted').length;
  if (refusal === undefined || admitted <= limit || tooSlowToJudge(attempt.roundTrips, limit, windowMs) !== null)
    return false;
  if (attempt.kind === 'idle') return boundaryMayFallInside(attempt.roundTrips[0]!.sentMs, refusal, windowMs);
  const previousRefusal = previous?.roundTrips.find((e) => e.admission === 'refused');
  return previousRefusal !== undefined && mayStraddleAfterReset(refusal.doneMs, previousRefusal, windowMs);
}

/** The idle attempt's count: admissions before its first refusal, and over how long they were decided. */
export function idleCountOf(obs: AllMethodsObservation): IdleCount | undefined {
  const idle = obs.attempts.find((a) => a.kind === 'idle');
  const first = idle?.roundTrips[0];
  if (idle === undefined || first === undefined) return undefined;
  const refusedAt = idle.roundTrips.findIndex((e) => e.admission === 'refused');
  const counted = refusedAt === -1 ? idle.roundTrips : idle.roundTrips.slice(0, refusedAt + 1);
  return {
    admitted: counted.filter((e) => e.admission === 'admitted').length,
    spanMs: Math.max(...counted.map((e) => e.doneMs)) - first.sentMs,
    limit: obs.limit,
    windowMs: obs.windowMs,
  };
}

export function judgeAllMethods(obs: AllMethodsObservation): CheckOutcome {
  const { limit, methods, attempts } = obs;
  const [first, second] = methods;
  const half = Math.ceil(limit / 2);
  const evidence = {
    methods,
    plan: `${half} × ${first}, ${limit - half} × ${second}, then 1 × ${first}`,
    attempts: attempts.map((a) => ({
      kind: a.kind,
      startMs: a.roundTrips[0]?.sentMs ?? null,
      admitted: a.roundTrips.filter((e) => e.admission === 'admitted').length,
      firstRefusal: a.roundTrips.findIndex((e) => e.admission === 'refused') + 1 || null,
      retryAfterS: a.roundTrips.find((e) => e.admission === 'refused')?.retryAfterS ?? null,
    })),
  };
  const decisive = attempts.at(-1);
  if (decisive === undefined) return skip('inconclusive', 'no attempt was made', evidence);
  const failed = decisive.roundTrips.find((e) => e.admission === 'failed');
  if (failed !== undefined)
    return skip('target_broken', `a request got no verdict from the limiter (${failed.outcome})`, evidence);
  const notes =
    attempts.length > 1
      ? [
          `the first attempt admitted more than ${limit}, but a window boundary may have fallen inside it: repeated right after the reset`,
        ]
      : [];
  const refusedAt = decisive.roundTrips.findIndex((e) => e.admission === 'refused');
  if (refusedAt !== -1 && refusedAt < limit) {
    const onFirst = Math.min(refusedAt, half);
    return {
      ...fail(
        `request ${refusedAt + 1} (${decisive.roundTrips[refusedAt]!.method}, after ${onFirst} × ${first} and ${refusedAt - onFirst} × ${second}) was refused; the limit is ${limit} across methods`,
        evidence,
        notes,
      ),
      findings: { failedOnCount: true, idleCount: idleCountOf(obs) },
    };
  }
  if (refusedAt !== limit) {
    // The next request may rightly be in a new window when sending was that slow.
    const slow = tooSlowToJudge(decisive.roundTrips, limit, obs.windowMs);
    if (slow !== null) return skip('inconclusive', slow, evidence, notes);
    const admitted = decisive.roundTrips.filter((e) => e.admission === 'admitted').length;
    const total = refusedAt === -1 ? `no refusal after ${admitted}` : `${admitted} admitted before the first refusal`;
    const failed = withPerReplicaReading(
      fail(
        `after ${half} × ${first} and ${limit - half} × ${second}, the next request was admitted (${total}); one quota across methods allows ${limit}`,
        evidence,
        notes,
      ),
      refusedAt === -1 ? [] : [admitted],
      limit,
    );
    return { ...failed, findings: { failedOnCount: true, idleCount: idleCountOf(obs) } };
  }
  return pass(
    `${half} × ${first} and ${limit - half} × ${second} admitted, the next ${first} refused: one quota across methods`,
    evidence,
    notes,
  );
}
