/**
 * Checks and thresholds of shards. A check fails when it failed in any shard, passes when it
 * passed in some and failed in none, and is skipped when every shard skipped it; its evidence
 * keeps each shard's own, labelled. Thresholds are expressions over the totals, so they are
 * evaluated again on the merged file rather than combined.
 */
import { evaluateThreshold } from '../../profile/threshold-results.ts';
import { parseThreshold } from '../../profile/thresholds.ts';
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

/** A threshold as a profile or a file's `config.thresholds` lists it: an expression, or `{threshold, abortOnFail, …}`. */
export interface ThresholdEntry {
  readonly expr: string;
  readonly abortOnFail: boolean;
}

/**
 * An entry of a `thresholds` list: a string, or an object whose `threshold` is the expression
 * (`abortOnFail` beside it; `delayAbortEval` in a profile, `delayAbortEvalMs` in a result's
 * config: neither matters once the run is over). The reason it is not one, as a string.
 */
export function thresholdEntry(value: unknown): ThresholdEntry | string {
  if (typeof value === 'string') return { expr: value, abortOnFail: false };
  const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (fields === null || typeof fields.threshold !== 'string')
    return `expected a threshold expression such as "p99 < 250ms" or an object {"threshold": "…", "abortOnFail": true}, found ${JSON.stringify(value)}`;
  if (fields.abortOnFail !== undefined && typeof fields.abortOnFail !== 'boolean')
    return `abortOnFail: expected true or false, found ${JSON.stringify(fields.abortOnFail)}`;
  return { expr: fields.threshold, abortOnFail: fields.abortOnFail === true };
}

/** The thresholds the shards were judged by: their recorded verdicts' and their config's, each expression once. */
function shardThresholds(shards: readonly Shard[]): ThresholdEntry[] {
  const byExpr = new Map<string, boolean>();
  for (const { result } of shards) {
    const listed = Array.isArray(result.config.thresholds) ? (result.config.thresholds as unknown[]) : [];
    const fromConfig = listed.map(thresholdEntry).filter((entry): entry is ThresholdEntry => typeof entry !== 'string');
    for (const { expr, abortOnFail } of [...result.thresholds.map((t) => ({ expr: t.expr, abortOnFail: t.abortOnFail === true })), ...fromConfig])
      byExpr.set(expr, (byExpr.get(expr) ?? false) || abortOnFail);
  }
  return [...byExpr].map(([expr, abortOnFail]) => ({ expr, abortOnFail }));
}

/**
 * Every threshold of the shards, evaluated on the merged result (an abortOnFail one keeps saying
 * so). One that no longer parses (a file from another version) is carried over — failing if it
 * failed in any shard, with no actual value — and a warning says so.
 */
export function mergeThresholds(shards: readonly Shard[], merged: RunResult): { thresholds: ThresholdResult[]; warnings: string[] } {
  const warnings: string[] = [];
  const thresholds = shardThresholds(shards).map(({ expr, abortOnFail }) => {
    try {
      return evaluateThreshold(parseThreshold(expr, { abortOnFail, delayAbortEvalMs: 0 }), merged);
    } catch (err) {
      warnings.push(`threshold ${JSON.stringify(expr)} could not be evaluated on the merged totals (${describeError(err)}): carried over from the shards`);
      const ok = shards.every((s) => s.result.thresholds.every((t) => t.expr !== expr || t.ok));
      return { expr, actual: null, ok, ...(abortOnFail ? { abortOnFail } : {}) };
    }
  });
  return { thresholds, warnings };
}
