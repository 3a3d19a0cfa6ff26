/**
 * Findings that change how another check's verdict must be read, applied once every check has
 * settled. When ratelimit.threshold finds a quota that refills gradually (a token bucket), the
 * checks that count admissions per window (one quota across methods, no race under concurrency)
 * measured that refill, not their own rule: their count failures are not judged.
 */
import type { CheckOutcome } from './check.ts';
import { skip } from './verdict.ts';
import type { CheckId } from './check-ids.ts';

export function reconcileOutcomes(outcomes: ReadonlyMap<CheckId, CheckOutcome>): Map<CheckId, CheckOutcome> {
  const changed = new Map<CheckId, CheckOutcome>();
  if (outcomes.get('ratelimit.threshold')?.findings?.quotaRefillsGradually !== true) return changed;
  for (const [id, outcome] of outcomes) {
    if (outcome.verdict !== 'fail' || outcome.findings?.failedOnCount !== true) continue;
    const detail = `not judged: the quota refills gradually (see ratelimit.threshold), which bends every per-window count (${outcome.detail})`;
    changed.set(id, skip('inconclusive', detail, outcome.evidence, outcome.notes));
  }
  return changed;
}
