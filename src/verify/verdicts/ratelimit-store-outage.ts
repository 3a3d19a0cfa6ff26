/**
 * `ratelimit.store_outage`: what the limiter did while the store it counts in was down. With half
 * of a client's budget spent before the fault, the client sends at twice the contract rate for one
 * window; a limiter that still limits admits at most what was left of the budget plus one whole
 * window (a reset may fall inside the window). More is fail-open (with the count beyond); fewer is
 * fail-closed, with 429 or with 5xx. Judged against the declared policy when there is one; without
 * one the observed policy is reported and the check passes, not judged.
 */
import type { CheckOutcome } from '../check.ts';
import type { OutagePolicy } from '../config.ts';
import type { RoundTrip } from '../round-trip.ts';
import { hookProblem, type HookRun } from './hook-runs.ts';
import { fail, pass, skip } from '../verdict.ts';

export interface StoreOutageObservation {
  readonly limit: number;
  readonly windowMs: number;
  readonly hookTimeoutMs: number;
  readonly declared: OutagePolicy | null;
  /** The half budget spent before the fault (one at a time, until half the limit or a refusal). */
  readonly spent: readonly RoundTrip[];
  readonly fault: HookRun | null;
  /** Sent at twice the contract rate for one window while the store was down. */
  readonly outage: readonly RoundTrip[];
  readonly heal: HookRun | null;
  /** One request after the heal: does the target answer again? */
  readonly afterHeal: RoundTrip | null;
}

/** How an answer during the outage counts. */
export type OutageAnswer = 'admitted' | 'refused' | 'unavailable' | 'failed';

export function outageAnswerOf(e: RoundTrip): OutageAnswer {
  if (e.admission === 'failed') return 'failed';
  if (e.admission === 'refused') return 'refused';
  return e.status >= 500 ? 'unavailable' : 'admitted';
}

/** What the limiter did, read from the answers during the outage. */
export interface ObservedPolicy {
  readonly policy: OutagePolicy;
  /** How it refused while closed: `429`, `5xx`, or both; null when open. */
  readonly refusedWith: '429' | '5xx' | '429+5xx' | null;
  readonly text: string;
  readonly notes: readonly string[];
}

export function readOutage(
  counts: Readonly<Record<OutageAnswer, number>>,
  budgetLeft: number,
  limit: number,
  statuses: string,
): ObservedPolicy {
  const allowance = budgetLeft + limit;
  const sent = counts.admitted + counts.refused + counts.unavailable + counts.failed;
  const { admitted, refused, unavailable } = counts;
  if (admitted > allowance)
    return {
      policy: 'open',
      refusedWith: null,
      text: `failed open: ${admitted} of ${sent} requests sent at twice the contract rate over one window were admitted while the store was down, ${admitted - allowance} more than a limiter that still limits admits (${allowance}: the ${budgetLeft} left of the budget plus one whole window)`,
      notes: [],
    };
  const refusedWith = refused > 0 && unavailable > 0 ? '429+5xx' : refused > 0 ? '429' : '5xx';
  const how =
    refusedWith === '429'
      ? 'with 429'
      : refusedWith === '5xx'
        ? `with 5xx (${statuses})`
        : `with 429 and 5xx (${statuses})`;
  const notes: string[] = [];
  if (admitted > budgetLeft)
    notes.push(
      `it admitted ${admitted} where ${budgetLeft} were left of the budget: a reset inside the window, or a count started afresh without the store (an in-memory fallback)`,
    );
  else if (admitted > 0 && unavailable === 0)
    notes.push(
      'it limited as if its store were up (the rest of the budget, then 429): a failover store or an in-memory fallback — or did the fault hook not break the store the limiter uses?',
    );
  const what =
    admitted === 0
      ? `refused all ${refused + unavailable} answered requests`
      : `admitted ${admitted} (${budgetLeft} were left of the budget), then refused ${refused + unavailable}`;
  return { policy: 'closed', refusedWith, text: `failed closed ${how}: ${what} while the store was down`, notes };
}

export function judgeStoreOutage(obs: StoreOutageObservation): CheckOutcome {
  const { limit, declared } = obs;
  const half = Math.floor(limit / 2);
  const spentAdmitted = obs.spent.filter((e) => e.admission === 'admitted').length;
  const counts: Record<OutageAnswer, number> = { admitted: 0, refused: 0, unavailable: 0, failed: 0 };
  for (const e of obs.outage) counts[outageAnswerOf(e)]++;
  const statuses = [...new Set(obs.outage.filter((e) => outageAnswerOf(e) === 'unavailable').map((e) => e.status))]
    .sort()
    .join(', ');
  const evidence: Record<string, unknown> = {
    limit,
    windowMs: obs.windowMs,
    declaredPolicy: declared,
    spentBeforeFault: spentAdmitted,
    ...(obs.fault ? { fault: obs.fault } : {}),
    outage: {
      sent: obs.outage.length,
      ...counts,
      ...(obs.outage.length > 0 ? { fromMs: obs.outage[0]!.sentMs, toMs: obs.outage.at(-1)!.doneMs } : {}),
      outcomes: tally(obs.outage.map((e) => e.outcome)),
    },
    ...(obs.heal ? { heal: obs.heal } : {}),
    ...(obs.afterHeal
      ? { afterHeal: { atMs: obs.afterHeal.sentMs, status: obs.afterHeal.status, outcome: obs.afterHeal.outcome } }
      : {}),
  };
  const failedBefore = obs.spent.find((e) => e.admission === 'failed');
  if (failedBefore !== undefined)
    return skip(
      'target_broken',
      `before the fault, a request got no verdict from the limiter (${failedBefore.outcome})`,
      evidence,
    );
  if (spentAdmitted < half)
    return skip(
      'inconclusive',
      `refused after ${spentAdmitted} of the ${half} requests spent before the fault: the client was not idle, or the limit is lower (see ratelimit.threshold)`,
      evidence,
    );
  const hookFailure = [obs.fault, obs.heal]
    .flatMap((run) => (run === null ? [] : [hookProblem(run, obs.hookTimeoutMs)]))
    .find((p) => p !== null);
  if (obs.fault === null || hookFailure !== undefined)
    return skip('target_broken', hookFailure ?? 'the fault hook did not run', evidence);
  if (counts.failed === obs.outage.length)
    return skip(
      'target_broken',
      `no request was answered while the store was down (${obs.outage[0]?.outcome ?? 'none sent'}): the fault broke more than the limiter's store`,
      evidence,
    );
  const budgetLeft = limit - half;
  if (counts.admitted <= budgetLeft + limit && counts.refused + counts.unavailable === 0)
    return skip(
      'inconclusive',
      `only ${obs.outage.length} requests were sent during the outage, all admitted: too few to tell a limiter that still limits from one that lets everything through`,
      evidence,
    );
  const observed = readOutage(counts, budgetLeft, limit, statuses);
  evidence.observedPolicy = { policy: observed.policy, refusedWith: observed.refusedWith };
  const notes = [...observed.notes];
  if (counts.failed > 0)
    notes.push(
      `${counts.failed} request(s) got no answer during the outage (${tally(obs.outage.filter((e) => e.admission === 'failed').map((e) => e.outcome)).join(', ')})`,
    );
  if (obs.afterHeal !== null && outageAnswerOf(obs.afterHeal) === 'failed')
    notes.push(`after the heal the target did not answer (${obs.afterHeal.outcome})`);
  if (declared === null)
    return pass(`${observed.text} — not judged: pass --outage-policy open|closed to judge it`, evidence, [
      ...notes,
      'observed policy reported, not judged (no --outage-policy)',
    ]);
  if (declared !== observed.policy)
    return fail(`declared --outage-policy ${declared}, but the limiter ${observed.text}`, evidence, notes);
  return pass(`as declared (--outage-policy ${declared}): the limiter ${observed.text}`, evidence, notes);
}

/** "outcome × count" for each distinct outcome, most frequent first. */
function tally(outcomes: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([o, n]) => `${o} × ${n}`);
}
