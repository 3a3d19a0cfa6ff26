/**
 * The live view of a run split over worker threads: the workers' latest snapshots combined.
 * Counts add up exactly; percentiles cannot be added without histograms, so each is the highest
 * of the workers' (an upper bound, exact when one worker dominates) — the result file's figures
 * come from merged histograms and are exact. Client rows follow `clientOrder` (the run's client
 * dimension); `empty` supplies the zero rows and figures of a run with no data yet. Workload rows
 * add up by name the same way (their p50/p99 and lag the highest of the workers'), and so do the
 * load's gauges (each worker offers its share of every workload's rate).
 */
import type { LiveClientRow, LiveLoadGauges, LiveSnapshot, LiveWorkloadRow } from '../contract/live-snapshot.ts';
import { mergeRecentErrors } from './recent-errors.ts';
import type { Percentiles, TimelineRow } from '../contract/result-schema.ts';

function maxPercentiles(list: readonly Percentiles[]): Percentiles {
  const pick = (key: keyof Percentiles): number => Math.max(0, ...list.map((p) => p[key]));
  return {
    min: list.length === 0 ? 0 : Math.min(...list.map((p) => p.min)),
    mean: pick('mean'),
    p50: pick('p50'),
    p90: pick('p90'),
    p99: pick('p99'),
    p999: pick('p999'),
    max: pick('max'),
  };
}

function addCounts(records: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const record of records) for (const [key, count] of Object.entries(record)) out[key] = (out[key] ?? 0) + count;
  return out;
}

function mergeTimelines(timelines: readonly (readonly TimelineRow[])[]): TimelineRow[] {
  const byT = new Map<number, TimelineRow>();
  for (const row of timelines.flat()) {
    const seen = byT.get(row.t);
    byT.set(
      row.t,
      seen === undefined
        ? { ...row }
        : {
            t: row.t,
            requests: seen.requests + row.requests,
            success: seen.success + row.success,
            rateLimited: seen.rateLimited + row.rateLimited,
            errors: seen.errors + row.errors,
            p50: Math.max(seen.p50, row.p50),
            p99: Math.max(seen.p99, row.p99),
          },
    );
  }
  return [...byT.values()].sort((a, b) => a.t - b.t);
}

/** The parts' skips by workload, added up per workload; nothing when no part has any. */
function skippedByWorkload(parts: readonly LiveSnapshot[]): Pick<LiveSnapshot, 'skippedByWorkload'> {
  const byWorkload = parts.flatMap((s) => Object.entries(s.skippedByWorkload ?? {}));
  if (byWorkload.length === 0) return {};
  const names = [...new Set(byWorkload.map(([name]) => name))];
  return {
    skippedByWorkload: Object.fromEntries(
      names.map((name) => [name, addCounts(byWorkload.filter(([n]) => n === name).map(([, reasons]) => reasons))]),
    ),
  };
}

export function mergeLiveSnapshots(
  parts: readonly LiveSnapshot[],
  empty: LiveSnapshot,
  clientOrder: readonly string[],
): LiveSnapshot {
  if (parts.length === 0) return empty;
  if (parts.length === 1 && parts[0]!.clients.length === clientOrder.length) return parts[0]!;
  const sum = (pick: (s: LiveSnapshot) => number): number => parts.reduce((total, s) => total + pick(s), 0);
  const rows = new Map<string, LiveClientRow>();
  for (const row of [...empty.clients, ...parts.flatMap((s) => s.clients)]) rows.set(row.id, row);
  const lags = parts.map((s) => s.scheduleLagMs).filter((lag): lag is Percentiles => lag !== null);
  return {
    elapsedMs: Math.max(...parts.map((s) => s.elapsedMs)),
    requests: sum((s) => s.requests),
    outcomes: addCounts(parts.map((s) => s.outcomes)),
    success: sum((s) => s.success),
    rateLimited: sum((s) => s.rateLimited),
    errors: sum((s) => s.errors),
    latencyMs: maxPercentiles(parts.filter((s) => s.requests > 0).map((s) => s.latencyMs)),
    serviceTimeMs: maxPercentiles(parts.filter((s) => s.requests > 0).map((s) => s.serviceTimeMs)),
    scheduleLagMs: lags.length === 0 ? null : maxPercentiles(lags),
    rpsLastSecond: sum((s) => s.rpsLastSecond),
    rpsLast10s: sum((s) => s.rpsLast10s),
    timeline: mergeTimelines(parts.map((s) => s.timeline)),
    clients: clientOrder.flatMap((id) => rows.get(id) ?? []),
    tokens: {
      requests: sum((s) => s.tokens.requests),
      failures: sum((s) => s.tokens.failures),
      latencyMs: maxPercentiles(parts.filter((s) => s.tokens.requests > 0).map((s) => s.tokens.latencyMs)),
    },
    skipped: addCounts(parts.map((s) => s.skipped)),
    ...skippedByWorkload(parts),
    recentErrors: mergeRecentErrors(parts.map((s) => s.recentErrors)),
    workloads: mergeWorkloadRows(
      empty.workloads,
      parts.map((s) => s.workloads),
    ),
  };
}

/** Each workload's rows of the parts combined, in the order of `order` (the run's workloads). */
function mergeWorkloadRows(
  order: readonly LiveWorkloadRow[],
  parts: readonly (readonly LiveWorkloadRow[])[],
): LiveWorkloadRow[] {
  return order.map((zero) => {
    const rows = parts.flatMap((list) => list.filter((row) => row.name === zero.name));
    const sum = (pick: (row: LiveWorkloadRow) => number): number => rows.reduce((total, row) => total + pick(row), 0);
    const active = rows.filter((row) => row.requests > 0);
    const lags = rows.flatMap((row) => (row.scheduleLagP99Ms === null ? [] : [row.scheduleLagP99Ms]));
    return {
      name: zero.name,
      requests: sum((row) => row.requests),
      success: sum((row) => row.success),
      rateLimited: sum((row) => row.rateLimited),
      errors: sum((row) => row.errors),
      rpsLastSecond: sum((row) => row.rpsLastSecond),
      latencyMs: {
        p50: Math.max(0, ...active.map((row) => row.latencyMs.p50)),
        p99: Math.max(0, ...active.map((row) => row.latencyMs.p99)),
      },
      scheduleLagP99Ms: lags.length === 0 ? null : Math.max(...lags),
      goodput: sum((row) => row.goodput),
      skipped: sum((row) => row.skipped),
    };
  });
}

/** The load's gauges of worker threads side by side: every figure adds up; null when no worker has reported any. */
export function sumLoadGauges(parts: readonly LiveLoadGauges[]): LiveLoadGauges | null {
  if (parts.length === 0) return null;
  const add = (pick: (g: LiveLoadGauges) => readonly number[]): number[] => {
    const out: number[] = [];
    for (const part of parts) pick(part).forEach((n, i) => (out[i] = (out[i] ?? 0) + n));
    return out;
  };
  return {
    offeredPerS: add((g) => g.offeredPerS),
    replayReleased: add((g) => g.replayReleased),
    inFlight: parts.reduce((total, g) => total + g.inFlight, 0),
  };
}
