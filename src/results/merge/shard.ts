/**
 * The inputs of a merge as shards, each placed on the merged run's clock by how long after the
 * earliest one it started.
 */
import type { LabelledResult } from '../compare/compare-runs.ts';
import type { RunResult } from '../../contract/result-schema.ts';

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
