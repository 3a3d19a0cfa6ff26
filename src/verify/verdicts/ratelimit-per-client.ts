/**
 * `ratelimit.per_client`: exhausting client A leaves client B admitted; A's second token shares
 * A's quota. Right after A is refused, a few requests with A's second token must not all be
 * admitted (one could be a quota refilling gradually), and a control request with A's first
 * token must still be refused (else a window boundary passed and the attempt proves nothing).
 */
import type { CheckOutcome } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import { fail, pass, skip } from '../verdict.ts';

export interface PerClientAttempt {
  /** A's exhaustion with its first token. */
  readonly exhaustion: {
    readonly admitted: number;
    readonly stop: 'refused' | 'failed' | 'cap';
    readonly last: RoundTrip | null;
    readonly tooSlow: string | null;
  };
  /** Requests with a second token of A, right after the exhaustion. */
  readonly secondToken: readonly RoundTrip[];
  /** One more request with A's first token. */
  readonly control: RoundTrip | null;
  /** A request as client B. */
  readonly otherClient: RoundTrip | null;
}

export interface PerClientObservation {
  readonly clientA: string;
  readonly clientB: string;
  readonly attempts: readonly PerClientAttempt[];
}

/** A's quota came back while the attempt ran (a boundary): the second-token requests prove nothing. */
export function attemptIsInconclusive(attempt: PerClientAttempt): boolean {
  return attempt.control?.admission === 'admitted';
}

function attemptEvidence(a: PerClientAttempt): Record<string, unknown> {
  return {
    exhaustionOfA: {
      admitted: a.exhaustion.admitted,
      refusedAtMs: a.exhaustion.stop === 'refused' ? a.exhaustion.last?.sentMs : null,
      retryAfterS: a.exhaustion.last?.retryAfterS ?? null,
    },
    secondTokenOfA: a.secondToken.map((e) => ({ atMs: e.sentMs, outcome: e.outcome })),
    firstTokenAgain: a.control ? { atMs: a.control.sentMs, outcome: a.control.outcome } : null,
    requestOfB: a.otherClient ? { atMs: a.otherClient.sentMs, outcome: a.otherClient.outcome } : null,
  };
}

export function judgePerClient(obs: PerClientObservation): CheckOutcome {
  const { clientA, clientB } = obs;
  const evidence = { clientA, clientB, attempts: obs.attempts.map(attemptEvidence) };
  const attempt = obs.attempts.at(-1);
  if (attempt === undefined) return skip('inconclusive', 'no attempt was made', evidence);
  const { exhaustion, secondToken, control, otherClient } = attempt;
  if (exhaustion.stop === 'failed')
    return skip(
      'target_broken',
      `a request of ${clientA} got no verdict from the limiter (${exhaustion.last?.outcome ?? 'unknown'})`,
      evidence,
    );
  if (exhaustion.stop === 'cap')
    return skip(
      'inconclusive',
      exhaustion.tooSlow ??
        `${clientA} was never refused (${exhaustion.admitted} admitted back to back): nothing to compare with`,
      evidence,
    );
  const unanswered = [...secondToken, control, otherClient].find((e) => e === null || e.admission === 'failed');
  if (unanswered !== undefined)
    return skip(
      'target_broken',
      `a comparison request got no verdict from the limiter (${unanswered?.outcome ?? 'not sent'})`,
      evidence,
    );
  if (attemptIsInconclusive(attempt))
    return skip(
      'inconclusive',
      `${clientA}'s quota came back during every attempt (a window boundary passed): cannot compare tokens`,
      evidence,
    );

  const problems: string[] = [];
  const notes: string[] = [];
  const quotaShared = otherClient!.admission === 'refused';
  if (quotaShared)
    problems.push(`exhausting ${clientA} also got ${clientB} refused: one quota is shared across client IDs`);
  const admittedT2 = secondToken.filter((e) => e.admission === 'admitted').length;
  if (admittedT2 === secondToken.length) {
    problems.push(
      `all ${admittedT2} requests with a second token of ${clientA} were admitted right after ${clientA}'s quota was exhausted (its first token still refused): the quota is counted per token, not per client ID`,
    );
  } else if (admittedT2 > 0)
    notes.push(
      `${admittedT2} of ${secondToken.length} requests with the second token were admitted: a quota refilling gradually, shared by both tokens`,
    );
  if (problems.length > 0) return { ...fail(problems.join('; '), evidence, notes), findings: { quotaShared } };
  return pass(
    `after ${clientA} was exhausted (${exhaustion.admitted} admitted), requests with a second token of ${clientA} were refused and ${clientB} was admitted`,
    evidence,
    notes,
  );
}
