/** The verdict every check ends with, and its pass, fail and skip constructors. */
import type { CheckVerdict } from '../contract/result-schema.ts';

/** How a check ended: the verdict, a one-line reason, the evidence behind it. */
export interface Verdict {
  readonly verdict: CheckVerdict;
  readonly detail: string;
  readonly evidence: Readonly<Record<string, unknown>>;
  /** Informational findings that do not change the verdict. */
  readonly notes?: readonly string[];
}

export function pass(detail: string, evidence: Readonly<Record<string, unknown>>, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'pass', detail, evidence, notes } : { verdict: 'pass', detail, evidence };
}

export function fail(detail: string, evidence: Readonly<Record<string, unknown>>, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'fail', detail, evidence, notes } : { verdict: 'fail', detail, evidence };
}

export function skip(detail: string, evidence: Readonly<Record<string, unknown>> = {}, notes?: readonly string[]): Verdict {
  return notes?.length ? { verdict: 'skip', detail, evidence, notes } : { verdict: 'skip', detail, evidence };
}
