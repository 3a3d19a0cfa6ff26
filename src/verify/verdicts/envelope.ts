/**
 * `envelope`: every response is a JSON object with `status` success (object `data`) or error
 * (string `error`), with a JSON content-type; an unknown method gets an error envelope.
 */
import { fail, pass, skip, type Verdict } from '../verdict.ts';

export interface EnvelopeSample {
  readonly method: string;
  readonly unknownMethod: boolean;
  readonly atMs: number;
  readonly status: number;
  /** success | error | invalid (not an envelope); null when no response arrived. */
  readonly kind: 'success' | 'error' | 'invalid' | null;
  readonly outcome: string;
  readonly violations: readonly string[];
  readonly bodyExcerpt: string;
}

export interface EnvelopeObservation {
  readonly samples: readonly EnvelopeSample[];
  /** Refusals of the rate limit waited out (not judged here: see ratelimit.response). */
  readonly refusalsWaited: number;
}

function problemOf(sample: EnvelopeSample): string | null {
  if (sample.kind === null) return null;
  if (sample.violations.length > 0) return sample.violations.join(', ');
  if (sample.unknownMethod && sample.kind !== 'error')
    return `an unknown method got a ${sample.kind} envelope, expected an error envelope`;
  return null;
}

export function judgeEnvelope(obs: EnvelopeObservation): Verdict {
  const answered = obs.samples.filter((s) => s.kind !== null);
  const broken = answered
    .map((s) => ({ sample: s, problem: problemOf(s) }))
    .filter((b): b is { sample: EnvelopeSample; problem: string } => b.problem !== null);
  const unanswered = obs.samples.length - answered.length;
  const byOutcome: Record<string, number> = {};
  for (const s of obs.samples) byOutcome[s.outcome] = (byOutcome[s.outcome] ?? 0) + 1;
  const unknown = obs.samples.find((s) => s.unknownMethod);
  const evidence = {
    responses: obs.samples.length,
    methods: [...new Set(obs.samples.filter((s) => !s.unknownMethod).map((s) => s.method))],
    outcomes: byOutcome,
    unknownMethod: unknown ? { method: unknown.method, status: unknown.status, outcome: unknown.outcome } : null,
    broken: broken.slice(0, 5).map(({ sample, problem }) => ({
      method: sample.method,
      atMs: sample.atMs,
      status: sample.status,
      problem,
      body: sample.bodyExcerpt,
    })),
    ...(obs.refusalsWaited > 0 ? { rateLimitRefusalsWaitedOut: obs.refusalsWaited } : {}),
  };
  const notes = unanswered > 0 ? [`${unanswered} request(s) got no response (transport errors), not judged here`] : [];
  if (answered.length === 0) return skip('target_broken', 'no request got a response', evidence, notes);
  if (broken.length > 0) {
    const { sample, problem } = broken[0]!;
    return fail(
      `${broken.length} of ${answered.length} responses broke the envelope; first: ${sample.method} → HTTP ${sample.status}: ${problem}`,
      evidence,
      notes,
    );
  }
  const unknownText = unknown?.kind ? `; unknown method → ${unknown.outcome} (HTTP ${unknown.status})` : '';
  return pass(
    `${answered.length} responses from ${evidence.methods.length} method(s) were valid JSON envelopes${unknownText}`,
    evidence,
    notes,
  );
}
