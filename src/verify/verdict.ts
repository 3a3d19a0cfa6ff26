/** The verdict every check ends with, and its pass, fail and skip constructors. */
import type { CheckVerdict, SkipClass } from '../contract/result-schema.ts';

/** How a check ended: the verdict, a one-line reason, the evidence behind it. */
export interface Verdict {
  readonly verdict: CheckVerdict;
  readonly detail: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  /** Informational findings that do not change the verdict. */
  readonly notes?: readonly string[];
  /** Why a skipped check could not be judged (present exactly when `verdict` is `skip`). */
  readonly skipClass?: SkipClass;
}

export function pass(detail: string, evidence: Readonly<Record<string, unknown>>, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'pass', detail, evidence, notes } : { verdict: 'pass', detail, evidence };
}

export function fail(detail: string, evidence: Readonly<Record<string, unknown>>, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'fail', detail, evidence, notes } : { verdict: 'fail', detail, evidence };
}

/**
 * A check that could not be judged, and why: `not_applicable` (the configuration gives it nothing
 * to check), `target_broken` (the target did not answer usably), `inconclusive` (answers came, but
 * they cannot decide), `interrupted`, `internal_error`. The class decides the exit code.
 */
export function skip(
  skipClass: SkipClass,
  detail: string,
  evidence: Readonly<Record<string, unknown>> = {},
  notes?: readonly string[],
): Verdict {
  return notes?.length
    ? { verdict: 'skip', skipClass, detail, evidence, notes }
    : { verdict: 'skip', skipClass, detail, evidence };
}
