/**
 * Checks and thresholds of shards. A check fails when it failed in any shard, passes when it
 * passed in some and failed in none, and is skipped when every shard skipped it; its evidence
 * keeps each shard's own, labelled. Thresholds are expressions over the totals, so they are
 * evaluated again on the merged file rather than combined.
 */
import { evaluateThreshold, parseThreshold } from '../../profile/thresholds.ts';
import { describeError } from '../../errors.ts';
import type { CheckResult, RunResult, ThresholdResult } from '../../contract/result-schema.ts';
import { combineChecks } from '../../verify/passive/combine-checks.ts';
import type { Shard } from './shard-set.ts';

/** The shards' checks combined (see combineChecks), each shard's evidence under `byShard`. */
export function mergeChecks(shards: readonly Shard[]): CheckResult[] {
  return combineChecks(
    shards.map(({ label, result }) => ({ label, checks: result.checks })),
    'byShard',
  );
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
