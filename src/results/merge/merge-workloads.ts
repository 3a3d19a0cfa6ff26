/**
 * `byWorkload` of shards merged. Each shard carries its share of every workload — its clients,
 * its part of each rate and concurrency — so a workload's requests, outcomes, goodput and clients
 * add up, its percentiles come from the summed histograms (merge-slices.ts), and per phase the
 * offered and achieved rates add up too: the shards offered their shares at the same time. A
 * replay workload's record is the recording's (the same in every shard) with what each shard
 * made of its own callers' calls added up.
 */
import type { ReplaySource } from '../../contract/replay-source-schema.ts';
import type { Goodput, RunResult, WorkloadPhase, WorkloadStats } from '../../contract/result-schema.ts';
import { sliceStats, type MergedSlice } from './merge-slices.ts';
import { sumCounts } from './merge-stats.ts';

const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * Per phase (by its name within the workload, in the order the shards list them): counts and
 * achieved rates added. The offered rates add up too — each shard offered its share of a rate —
 * except a replay's: every shard states the whole recording's rate at its speed (it sends only its
 * own callers' calls of it), so the merged offer is that rate, once.
 */
export function mergedPhases(lists: readonly (readonly WorkloadPhase[])[], kind: WorkloadStats['kind']): WorkloadPhase[] {
  const names = [...new Set(lists.flatMap((list) => list.map((phase) => phase.name)))];
  return names.map((name) => {
    const parts = lists.flatMap((list) => list.filter((phase) => phase.name === name));
    const offered = parts.flatMap((phase) => (phase.offeredPerS === null ? [] : [phase.offeredPerS]));
    return {
      name,
      requests: parts.reduce((sum, phase) => sum + phase.requests, 0),
      offeredPerS: offered.length === 0 ? null : kind === 'replay' ? Math.max(...offered) : round3(offered.reduce((sum, perS) => sum + perS, 0)),
      achievedPerS: round3(parts.reduce((sum, phase) => sum + phase.achievedPerS, 0)),
    };
  });
}

/** Goodput added up: each shard counted its successes within the same bound (one profile, one SLO). */
function mergedGoodput(parts: readonly (Goodput | undefined)[], durationS: number): { goodput?: Goodput } {
  const recorded = parts.filter((g): g is Goodput => g !== undefined);
  if (recorded.length === 0) return {};
  const requests = recorded.reduce((sum, g) => sum + g.requests, 0);
  const latencyBoundMs = recorded.find((g) => g.latencyBoundMs !== null)?.latencyBoundMs ?? null;
  return { goodput: { requests, perS: durationS > 0 ? round3(requests / durationS) : 0, latencyBoundMs } };
}

/**
 * One recording's record across shards. Every shard scans the whole recording, so what the scan
 * found (calls, callers, the window's disorder, the records it skipped) is the same in each and
 * kept once; each shard sends its own callers' calls, so `sent` adds up, and so do the skips that
 * happened while sending — told apart by their reasons, which are the run's own (`summary.skipped`).
 */
export function mergeReplaySources(
  sources: readonly ReplaySource[],
  runtimeReasons: ReadonlySet<string>,
): ReplaySource | undefined {
  const [first] = sources;
  if (first === undefined) return undefined;
  const skipped: Record<string, number> = {};
  for (const reason of new Set(sources.flatMap((s) => Object.keys(s.skipped)))) {
    const counts = sources.map((s) => s.skipped[reason] ?? 0);
    skipped[reason] = runtimeReasons.has(reason) ? counts.reduce((sum, n) => sum + n, 0) : Math.max(...counts);
  }
  return { ...first, sent: sources.reduce((sum, s) => sum + s.sent, 0), skipped };
}

/** The reasons arrivals went unsent while the shards ran (as opposed to records a recording's scan skipped). */
export function runtimeSkipReasons(results: readonly RunResult[]): Set<string> {
  return new Set(Object.keys(sumCounts(results.map((r) => r.summary.skipped))));
}

/** The merged `byWorkload`, in the order the shards list the workloads. */
export function mergedWorkloads(
  slices: ReadonlyMap<string, MergedSlice<WorkloadStats>>,
  durationS: number,
  runtimeReasons: ReadonlySet<string>,
): Record<string, WorkloadStats> {
  const out: Record<string, WorkloadStats> = {};
  for (const [name, slice] of slices) {
    const parts = slice.parts.map((p) => p.stats);
    const replay = mergeReplaySources(
      parts.flatMap((w) => (w.replay === undefined ? [] : [w.replay])),
      runtimeReasons,
    );
    out[name] = {
      ...sliceStats(slice, durationS),
      kind: parts[0]!.kind,
      clients: parts.reduce((sum, w) => sum + w.clients, 0),
      ...mergedGoodput(
        parts.map((w) => w.goodput),
        durationS,
      ),
      phases: mergedPhases(
        parts.map((w) => w.phases),
        parts[0]!.kind,
      ),
      ...(replay === undefined ? {} : { replay }),
    };
  }
  return out;
}
