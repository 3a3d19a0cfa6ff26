/**
 * The checks of a whole made of parts — the shards of a merged run, the steps of a capacity search
 * — from the checks each part judged on its own traffic. A check fails when it failed in any part,
 * passes when it passed in some and failed in none, and is skipped when every part skipped it; its
 * evidence keeps each part's own, labelled.
 */
import type { CheckResult, CheckVerdict, SkipClass } from '../../contract/result-schema.ts';

/** One part's checks, and how its evidence is labelled (a shard's file name, a step's phase). */
export interface CheckPart {
  readonly label: string;
  readonly checks: readonly CheckResult[];
}

const combinedVerdict = (verdicts: readonly CheckVerdict[]): CheckVerdict =>
  verdicts.includes('fail') ? 'fail' : verdicts.includes('pass') ? 'pass' : 'skip';

/** A check every part skipped keeps the gravest reason: a broken target outweighs an inapplicable check. */
const SKIP_GRAVITY: readonly SkipClass[] = [
  'internal_error',
  'target_broken',
  'interrupted',
  'inconclusive',
  'not_applicable',
];
const gravestSkip = (classes: readonly (SkipClass | undefined)[]): SkipClass | undefined =>
  SKIP_GRAVITY.find((c) => classes.includes(c));

/** The parts' checks combined, one per id in order of first appearance; `evidenceKey` names the per-part evidence (`byShard`, `byStep`). */
export function combineChecks(parts: readonly CheckPart[], evidenceKey: string): CheckResult[] {
  const byId = new Map<string, { label: string; check: CheckResult }[]>();
  for (const { label, checks } of parts)
    for (const check of checks) byId.set(check.id, [...(byId.get(check.id) ?? []), { label, check }]);
  return [...byId].map(([id, judged]) => {
    const verdict = combinedVerdict(judged.map((p) => p.check.verdict));
    // The detail explains the combined verdict: the parts that reached it, labelled when they differ.
    const reasons = judged.filter((p) => p.check.verdict === verdict);
    const details = [...new Set(reasons.map((p) => p.check.detail))];
    const durations = judged.map((p) => p.check.durationMs).filter((ms): ms is number => ms !== undefined);
    const notes = judged.flatMap((p) => (p.check.notes ?? []).map((note) => `${p.label}: ${note}`));
    const skipClass = verdict === 'skip' ? gravestSkip(judged.map((p) => p.check.skipClass)) : undefined;
    return {
      id,
      verdict,
      ...(skipClass === undefined ? {} : { skipClass }),
      detail: details.length === 1 ? details[0]! : reasons.map((p) => `${p.label}: ${p.check.detail}`).join('; '),
      evidence: {
        [evidenceKey]: Object.fromEntries(
          judged.map((p) => [
            p.label,
            { verdict: p.check.verdict, detail: p.check.detail, evidence: p.check.evidence },
          ]),
        ),
      },
      ...(durations.length > 0 ? { durationMs: Math.max(...durations) } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    };
  });
}
