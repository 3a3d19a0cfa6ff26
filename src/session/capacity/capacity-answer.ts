/**
 * The answer of a capacity search and its bracket, from how the search ended and what the
 * confirmation found. Pure. The answer is always the bracket's low end: the highest load that
 * passed below every load that failed — a confirmation that fails is a fail like any other, so
 * the bracket's top comes down to it and the answer with it, never left above its own bracket.
 */
import type { CapacityLimit } from '../../contract/capacity-schema.ts';
import { quotaFinding, type QuotaBound } from './client-quota.ts';
import type { SearchCeiling, SearchNext } from './search.ts';

/** How the search ended, before confirmation. */
export interface SearchEnd {
  readonly lastPass: number | null;
  readonly firstFail: number | null;
  readonly limitedBy: CapacityLimit;
  readonly atLeast: boolean;
  /** Why, in words, when not the plain bracket. */
  readonly why: string | null;
}

/**
 * How the search ended, from the search's last word (nextStep's `done`): at a ceiling — the
 * clients' quota bound or the configured max — "at least", with the reason; after its last step
 * without a failure, "at least" too; else bracketed, limited by what failed at the first fail
 * (`firstFailLimit`). `show` writes a load in its unit.
 */
export function searchEndOf(
  done: Extract<SearchNext, { kind: 'done' }>,
  ceiling: SearchCeiling | null,
  bound: QuotaBound | null,
  firstFailLimit: CapacityLimit | null,
  maxSteps: number,
  show: (load: number) => string,
): SearchEnd {
  const { lastPass, firstFail, reason } = done;
  if (reason === 'ceiling' && ceiling !== null) {
    const quota = ceiling.reason === 'client quota' && bound !== null;
    const why = quota ? quotaFinding(bound) : `the search's max (${show(ceiling.value)}) was reached`;
    return { lastPass, firstFail, limitedBy: quota ? 'client quota' : 'max', atLeast: true, why };
  }
  if (reason === 'max steps' && firstFail === null)
    return { lastPass, firstFail, limitedBy: 'max', atLeast: true, why: `the search stopped after ${maxSteps} steps` };
  return { lastPass, firstFail, limitedBy: firstFailLimit ?? 'none', atLeast: false, why: null };
}

/** One judged step of the search or the confirmation, as the answer needs it. */
export interface Attempt {
  readonly kind: 'search' | 'confirm';
  readonly load: number;
  readonly verdict: 'pass' | 'fail' | 'generator-bound';
  /** What its first failing line measures; null when it passed. */
  readonly limit: CapacityLimit | null;
}

export interface CapacityAnswer {
  /** The highest load that passed below every fail; null when none did. */
  readonly answer: number | null;
  readonly bracket: readonly [lastPass: number | null, firstFail: number | null];
  readonly limitedBy: CapacityLimit;
  readonly atLeast: boolean;
  readonly why: string | null;
  /** The attempt that failed at the bracket's top (the confirmation's when it brought the top down). */
  readonly decisive: Attempt | null;
  /** A confirmation passed at the answer. */
  readonly confirmed: boolean;
}

/**
 * The answer from the search's end, its steps that count (retried attempts left out) and the
 * confirmation's attempts in order. Generator-bound attempts say nothing about the server and are
 * left out. A search limited by the clients' quotas is "at least" its answer: the server never
 * was the limit.
 */
export function capacityAnswer(
  end: SearchEnd,
  search: readonly Attempt[],
  confirmations: readonly Attempt[],
): CapacityAnswer {
  const judged = (a: Attempt): boolean => a.verdict !== 'generator-bound';
  const failedConfirms = confirmations.filter((a) => judged(a) && a.verdict === 'fail');
  const confirmedAt = confirmations.find((a) => a.verdict === 'pass') ?? null;
  const lowestFailedConfirm = failedConfirms.reduce<Attempt | null>(
    (low, a) => (low === null || a.load < low.load ? a : low),
    null,
  );
  const confirmBroughtTopDown =
    lowestFailedConfirm !== null && (end.firstFail === null || lowestFailedConfirm.load < end.firstFail);
  const firstFail = confirmBroughtTopDown ? lowestFailedConfirm.load : end.firstFail;
  const passesBelow = search.filter(
    (a) => judged(a) && a.verdict === 'pass' && (firstFail === null || a.load < firstFail),
  );
  const searchPass = passesBelow.length === 0 ? null : Math.max(...passesBelow.map((a) => a.load));
  const answer = confirmedAt !== null ? confirmedAt.load : searchPass;
  const decisive = confirmBroughtTopDown
    ? lowestFailedConfirm
    : (search.find((a) => a.kind === 'search' && a.load === firstFail && a.verdict === 'fail') ?? null);
  const limitedBy = confirmBroughtTopDown ? (lowestFailedConfirm.limit ?? 'none') : end.limitedBy;
  return {
    answer,
    bracket: [answer, firstFail],
    limitedBy,
    atLeast: (end.atLeast && failedConfirms.length === 0) || (answer !== null && limitedBy === 'client quota'),
    why: confirmBroughtTopDown ? null : end.why,
    decisive,
    confirmed: confirmedAt !== null,
  };
}
