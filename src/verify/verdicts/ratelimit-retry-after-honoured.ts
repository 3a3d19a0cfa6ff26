/**
 * `ratelimit.retry_after_honoured`: a client that waits exactly the Retry-After it was given
 * (from receipt, sending nothing) is admitted — sampled at two moments of a window. Beside it,
 * informational unless strict: a probe one second early on a refusal of its own shows whether
 * Retry-After overstates the wait by more than whole-second rounding explains.
 */
import type { RoundTrip } from '../round-trip.ts';
import { fail, pass, skip, type Verdict } from '../verdict.ts';

export interface HonourSample {
  /** The exhaustion refusal that opened this throttled stretch (the sample's moment is relative to it). */
  readonly exhaustedAtMs: number;
  /** The refusal whose Retry-After was honoured. */
  readonly refusal: RoundTrip;
  /** The request sent once Retry-After had passed; null when the refusal gave no Retry-After. */
  readonly probe: RoundTrip | null;
}

export interface SlackProbe {
  /** A refusal saying Retry-After N ≥ 2 … */
  readonly refusal: RoundTrip;
  /** … and a request sent N − 1 s after its receipt. */
  readonly probe: RoundTrip;
}

export interface HonourObservation {
  readonly samples: readonly HonourSample[];
  readonly slack: SlackProbe | null;
  readonly strict: boolean;
  /** Why no sample could be taken (no refusal, no limiter verdict), if so. */
  readonly problem: { readonly kind: 'no-refusal' | 'failed'; readonly detail: string } | null;
}

function sampleEvidence(s: HonourSample): Record<string, unknown> {
  return {
    msIntoThrottle: Math.round(s.refusal.sentMs - s.exhaustedAtMs),
    refusedAtMs: s.refusal.sentMs,
    receivedAtMs: s.refusal.doneMs,
    retryAfterS: s.refusal.retryAfterS,
    ...(s.probe
      ? { probeSentAtMs: s.probe.sentMs, probe: s.probe.outcome, probeRetryAfterS: s.probe.retryAfterS }
      : {}),
  };
}

export function judgeRetryAfterHonoured(obs: HonourObservation): Verdict {
  const evidence: Record<string, unknown> = {
    samples: obs.samples.map(sampleEvidence),
    ...(obs.slack
      ? {
          slackProbe: {
            retryAfterS: obs.slack.refusal.retryAfterS,
            receivedAtMs: obs.slack.refusal.doneMs,
            probeSentAtMs: obs.slack.probe.sentMs,
            probe: obs.slack.probe.outcome,
          },
        }
      : {}),
  };
  if (obs.problem?.kind === 'failed') return skip('target_broken', obs.problem.detail, evidence);
  if (obs.problem?.kind === 'no-refusal') return fail(obs.problem.detail, evidence);
  if (obs.samples.some((s) => s.refusal.retryAfterS === null))
    return skip(
      'inconclusive',
      'the refusal carried no usable Retry-After (see ratelimit.response): nothing to honour',
      evidence,
    );

  const notes: string[] = [];
  let slackFailure: string | null = null;
  if (obs.slack) {
    const { refusal, probe } = obs.slack;
    const early = probe.admission === 'admitted';
    notes.push(
      early
        ? `Retry-After accuracy: a probe 1 s before Retry-After ${refusal.retryAfterS} ran out was admitted: it overstates the wait by more than whole-second rounding`
        : `Retry-After accuracy: a probe 1 s before Retry-After ${refusal.retryAfterS} ran out was refused: no slack beyond rounding`,
    );
    if (early && obs.strict)
      slackFailure = `--strict-retry-after: admitted 1 s before Retry-After ${refusal.retryAfterS} ran out (slack over the 1 s rounding allowance)`;
  } else notes.push('Retry-After accuracy: not probed (needs a Retry-After of 2 s or more)');

  const refused = obs.samples.find((s) => s.probe?.admission !== 'admitted');
  if (refused !== undefined) {
    const { refusal, probe } = refused;
    return fail(
      `waited Retry-After ${refusal.retryAfterS} s from receipt (${refusal.doneMs} ms), sending nothing; the request at ${probe?.sentMs} ms was still ${probe?.admission === 'refused' ? `refused (Retry-After now ${probe.retryAfterS ?? 'missing'})` : `not admitted (${probe?.outcome})`}`,
      evidence,
      notes,
    );
  }
  const moments = new Set(obs.samples.map((s) => Math.round((s.refusal.sentMs - s.exhaustedAtMs) / 100)));
  if (obs.samples.length < 2 || moments.size < 2)
    return skip(
      'inconclusive',
      `admitted after waiting Retry-After, but sampled at only ${moments.size} moment of a window`,
      evidence,
      notes,
    );
  if (slackFailure !== null) return fail(slackFailure, evidence, notes);
  const described = obs.samples
    .map(
      (s) =>
        `Retry-After ${s.refusal.retryAfterS} s ${Math.round(s.refusal.sentMs - s.exhaustedAtMs)} ms into the throttle`,
    )
    .join(', ');
  return pass(
    `admitted after waiting exactly the Retry-After from receipt at ${obs.samples.length} moments (${described})`,
    evidence,
    notes,
  );
}
