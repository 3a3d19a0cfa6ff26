/**
 * The inputs of a merge as shards. Each is placed on the merged run's clock by how long after the
 * earliest one it started. Files written by `run --shard I/N` name their run and index, so a
 * merge can tell a complete set from one with a shard missing, a file of another run, or the same
 * shard twice — each a one-line refusal, because any of them would silently change the counts and
 * verdicts of the merged result.
 */
import { RpcloadError } from '../../errors.ts';
import type { RunResult, ShardSet } from '../../contract/result-schema.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';

/** One input of a merge, placed on the merged run's clock. */
export interface Shard {
  readonly label: string;
  readonly result: RunResult;
  /** How long after the earliest shard this one started (ms). */
  readonly offsetMs: number;
  /** The same offset in whole seconds (rounded to the nearest): where its timeline rows land. */
  readonly offsetS: number;
}

/** Place the inputs on one clock: the merged run starts when the earliest shard started. */
export function toShards(inputs: readonly LabelledResult[]): { shards: Shard[]; startMs: number } {
  const startMs = Math.min(...inputs.map((input) => Date.parse(input.result.run.startedAt)));
  const shards = inputs.map(({ label, result }) => {
    const offsetMs = Date.parse(result.run.startedAt) - startMs;
    return { label, result, offsetMs, offsetS: Math.round(offsetMs / 1000) };
  });
  return { shards, startMs };
}

/** Start spreads beyond this are worth a warning: the merged timeline's edges carry fewer shards. */
const SPREAD_WARNING_MS = 1000;

/** Sorted shard indices, runs of consecutive ones as ranges: `1–3, 50, 120–121` (200 indices stay a short line). */
function ranges(numbers: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    parts.push(j === i ? String(numbers[i]) : `${numbers[i]}–${numbers[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * Check that sharded inputs form one run's set (all of it, unless `partial`). Null when no input
 * is a shard's file (files merged by hand, as before shards named themselves).
 */
export function checkShardSet(inputs: readonly LabelledResult[], partial: boolean): { set: ShardSet; warnings: string[] } | null {
  const sharded = inputs.filter((input) => input.result.run.shard !== undefined);
  if (sharded.length === 0) return null;
  const loose = inputs.find((input) => input.result.run.shard === undefined);
  const first = sharded[0]!;
  const { runId, count } = first.result.run.shard!;
  if (loose !== undefined) {
    throw new RpcloadError('incomparable', `cannot merge: ${loose.label} is not a shard's file, but ${first.label} is shard ${first.result.run.shard!.index}/${count} of run ${runId}`);
  }
  const byIndex = new Map<number, string>();
  for (const { label, result } of sharded) {
    const shard = result.run.shard!;
    if (shard.runId !== runId) {
      throw new RpcloadError('incomparable', `cannot merge: ${label} is a shard of run ${shard.runId}, but ${first.label} is a shard of run ${runId}`);
    }
    if (shard.count !== count) {
      throw new RpcloadError('incomparable', `cannot merge: ${label} is shard ${shard.index}/${shard.count}, but ${first.label} is shard ${first.result.run.shard!.index}/${count} of the same run ${runId}`);
    }
    const twin = byIndex.get(shard.index);
    if (twin !== undefined) throw new RpcloadError('incomparable', `cannot merge: ${twin} and ${label} are both shard ${shard.index}/${count} of run ${runId}`);
    byIndex.set(shard.index, label);
  }
  const merged = [...byIndex.keys()].sort((a, b) => a - b);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !byIndex.has(index));
  if (missing.length > 0 && !partial) {
    throw new RpcloadError(
      'incomplete',
      `cannot merge: ${missing.length === 1 ? 'shard' : 'shards'} ${ranges(missing)} of ${count} of run ${runId} ${missing.length === 1 ? 'is' : 'are'} missing (have ${merged.length} of ${count}); merge --partial merges the shards present and marks the result partial`,
    );
  }
  const starts = sharded.map((input) => Date.parse(input.result.run.startedAt));
  const startSpreadMs = Math.round((Math.max(...starts) - Math.min(...starts)) * 1000) / 1000;
  const lates = sharded.map((input) => input.result.run.shard!.startLateMs).filter((ms): ms is number => ms !== null);
  const warnings: string[] = [];
  if (missing.length > 0) {
    warnings.push(
      `partial merge: shard${missing.length === 1 ? '' : 's'} ${ranges(missing)} of ${count} missing; counts, checks and thresholds cover only shards ${ranges(merged)}`,
    );
  }
  if (startSpreadMs > SPREAD_WARNING_MS) {
    warnings.push(`the shards started ${Math.round(startSpreadMs)} ms apart: the merged timeline's first and last seconds carry fewer shards (use --start-at)`);
  }
  return {
    set: { runId, count, merged, missing, startSpreadMs, maxStartLateMs: lates.length === 0 ? null : Math.max(...lates) },
    warnings,
  };
}
