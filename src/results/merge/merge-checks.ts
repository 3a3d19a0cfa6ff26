/**
 * Checks and thresholds of shards. A check fails when it failed in any shard, passes when it
 * passed in some and failed in none, and is skipped when every shard skipped it; its evidence
 * keeps each shard's own, labelled. Thresholds are expressions over the totals, so they are
 * evaluated again on the merged file rather than combined.
 */
import { evaluateThreshold, parseThreshold } from '../../profile/thresholds.ts';
import { describeError } from '../../errors.ts';
import type { CheckResult, CheckVerdict, RunResult, SkipClass, ThresholdResult } from '../../contract/result-schema.ts';
import type { Shard } from './shard-set.ts';

const mergedVerdict = (verdicts: readonly CheckVerdict[]): CheckVerdict =>
  verdicts.includes('fail') ? 'fail' : verdicts.includes('pass') ? 'pass' : 'skip';

/** A check every shard skipped keeps the gravest reason: a broken target outweighs an inapplicable check. */
const SKIP_GRAVITY: readonly SkipClass[] = ['internal_error', 'target_broken', 'interrupted', 'inconclusive', 'not_applicable'];
const gravestSkip = (classes: readonly (SkipClass | undefined)[]): SkipClass | undefined => SKIP_GRAVITY.find((c) => classes.includes(c));

export function mergeChecks(shards: readonly Shard[]): CheckResult[] {
  const byId = new Map<string, { label: string; check: CheckResult }[]>();
  for (const { label, result } of shards) for (const check of result.checks) byId.set(check.id, [...(byId.get(check.id) ?? []), { label, check }]);
  return [...byId].map(([id, parts]) => {
    const verdict = mergedVerdict(parts.map((p) => p.check.verdict));
    // The detail explains the merged verdict: the shards that reached it, labelled when they differ.
    const reasons = parts.filter((p) => p.check.verdict === verdict);
    const details = [...new Set(reasons.map((p) => p.check.detail))];
    const durations = parts.map((p) => p.check.durationMs).filter((ms): ms is number => ms !== undefined);
    const notes = parts.flatMap((p) => (p.check.notes ?? []).map((note) => `${p.label}: ${note}`));
    const skipClass = verdict === 'skip' ? gravestSkip(parts.map((p) => p.check.skipClass)) : undefined;
    return {
      id,
      verdict,
      skipClass,
      detail: details.length === 1 ? details[0]! : reasons.map((p) => `${p.label}: ${p.check.detail}`).join('; '),
      evidence: { byShard: Object.fromEntries(parts.map((p) => [p.label, { verdict: p.check.verdict, detail: p.check.detail, evidence: p.check.evidence }])) },
      ...(durations.length > 0 ? { durationMs: Math.max(...durations) } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    };
  });
}

/**
 * Every threshold expression of the shards, evaluated on the merged result. One that no longer
 * parses (a file from another version) is carried over — failing if it failed in any shard, with
 * no actual value — and a warning says so.
 */
export function mergeThresholds(shards: readonly Shard[], merged: RunResult): { thresholds: ThresholdResult[]; warnings: string[] } {
  const exprs = [...new Set(shards.flatMap((s) => s.result.thresholds.map((t) => t.expr)))];
  const warnings: string[] = [];
  const thresholds = exprs.map((expr) => {
    try {
      return evaluateThreshold(parseThreshold(expr), merged);
    } catch (err) {
      warnings.push(`threshold ${JSON.stringify(expr)} could not be evaluated on the merged totals (${describeError(err)}): carried over from the shards`);
      const ok = shards.every((s) => s.result.thresholds.every((t) => t.expr !== expr || t.ok));
      return { expr, actual: null, ok };
    }
  });
  return { thresholds, warnings };
}
