/**
 * Findings that change how another check's verdict must be read, applied once every check has
 * settled. When ratelimit.threshold finds a quota that refills gradually (a token bucket), the
 * checks that count admissions per window (one quota across methods, no race under concurrency)
 * measured some refill beside their own rule: their count failures are judged again on the
 * attempt from a rested client, allowing the most a refill of `limit` per window can add over the
 * time that attempt took. Without that attempt's count they are not judged.
 */
import type { CheckOutcome, IdleCount } from './check.ts';
import { fail, pass, skip } from './verdict.ts';
import type { CheckId } from './check-ids.ts';

/** The most a quota refilling at `limit` per window adds while a full one is spent over `spanMs`. */
export function refillAllowance(count: IdleCount): number {
  return Math.floor((Math.max(0, count.spanMs) * count.limit) / count.windowMs);
}

/** A count failure judged again with the refill allowance. */
function judgeWithRefill(outcome: CheckOutcome, count: IdleCount): CheckOutcome {
  const allowance = refillAllowance(count);
  const spanMs = Math.round(count.spanMs * 10) / 10;
  const refill = `a quota refilling at ${count.limit} per ${count.windowMs} ms adds at most ${allowance} in ${spanMs} ms`;
  const evidence = { ...outcome.evidence, refill: { idleAdmitted: count.admitted, spanMs, allowance } };
  const notes = [
    ...(outcome.notes ?? []),
    `judged with the refill allowance: the quota refills gradually (see ratelimit.threshold) — was: ${outcome.detail}`,
  ];
  if (count.admitted < count.limit)
    return {
      ...fail(
        `${count.admitted} admitted from a rested client before the first refusal; the limit is ${count.limit} (a refill only adds)`,
        evidence,
        notes,
      ),
      findings: outcome.findings,
    };
  if (count.admitted > count.limit + allowance)
    return {
      ...fail(
        `${count.admitted} admitted from a rested client within ${spanMs} ms; the limit is ${count.limit}, and ${refill}`,
        evidence,
        notes,
      ),
      findings: outcome.findings,
    };
  return pass(
    `${count.admitted} admitted from a rested client within ${spanMs} ms: the limit of ${count.limit}, plus at most ${allowance} refilled (${refill})`,
    evidence,
    notes,
  );
}

export function reconcileOutcomes(outcomes: ReadonlyMap<CheckId, CheckOutcome>): Map<CheckId, CheckOutcome> {
  const changed = new Map<CheckId, CheckOutcome>();
  if (outcomes.get('ratelimit.threshold')?.findings?.quotaRefillsGradually !== true) return changed;
  for (const [id, outcome] of outcomes) {
    if (outcome.verdict !== 'fail' || outcome.findings?.failedOnCount !== true) continue;
    const count = outcome.findings.idleCount;
    if (count !== undefined) {
      changed.set(id, judgeWithRefill(outcome, count));
      continue;
    }
    const detail = `not judged: the quota refills gradually (see ratelimit.threshold), which bends every per-window count (${outcome.detail})`;
    changed.set(id, skip('inconclusive', detail, outcome.evidence, outcome.notes));
  }
  return changed;
}
