/**
 * What happened around the shards' load, merged: their `setup` and `teardown` records and the
 * threshold that stopped a shard (`run.stop`). Shards of a run with a setup run with
 * `--setup-values` (setup ran once, by `rpcload setup`), so each has the same skipped record
 * naming the values file: the merged file keeps one. Files whose setup ran in each of them (merged
 * by hand) keep the worst, with the requests of all, and a warning says it ran more than once.
 */
import type { RunStop, SetupRecord } from '../../contract/result-schema.ts';
import { sumCounts } from './merge-stats.ts';
import type { Shard } from './shard-set.ts';

const STATUS_SEVERITY: readonly SetupRecord['status'][] = ['skipped', 'ok', 'failed'];
const severity = (record: SetupRecord): number => STATUS_SEVERITY.indexOf(record.status);

interface Merged<T> {
  readonly merged?: T;
  readonly warnings: string[];
}

/** Shards that skipped their setup: the first one's record, saying where the values came from. */
function skippedRecord(records: readonly SetupRecord[]): SetupRecord {
  const first = records[0]!;
  const fromFile = records.find((record) => record.fromFile !== undefined)?.fromFile;
  if (fromFile === undefined) return first;
  return { ...first, fromFile, reason: `its values came from ${fromFile} (rpcload setup ran it once for every shard)` };
}

/** The shards' setup (or teardown) records as one, with what to warn about; nothing when no shard had one. */
export function mergedSetupRecord(shards: readonly Shard[], which: 'setup' | 'teardown'): Merged<SetupRecord> {
  const present = shards.flatMap(({ label, result }) => (result[which] === undefined ? [] : [{ label, record: result[which] }]));
  if (present.length === 0) return { warnings: [] };
  const ran = present.filter((p) => p.record.status !== 'skipped');
  if (ran.length === 0) return { merged: skippedRecord(present.map((p) => p.record)), warnings: [] };
  if (ran.length === 1) return { merged: ran[0]!.record, warnings: [] };
  const worst = ran.reduce((a, b) => (severity(b.record) > severity(a.record) ? b : a));
  const merged: SetupRecord = {
    ...worst.record,
    requests: ran.reduce((sum, p) => sum + p.record.requests, 0),
    outcomes: sumCounts(ran.map((p) => p.record.outcomes)),
    saved: [...new Set(ran.flatMap((p) => p.record.saved))],
  };
  const files = ran.map((p) => p.label).join(', ');
  const warning = `${which} ran in ${ran.length} of the merged files (${files}), not once: its requests are added up, its latency is ${worst.label}'s`;
  return { merged, warnings: [warning] };
}

/**
 * The earliest threshold stop of any shard, on the merged run's clock: a merged run whose shard
 * stopped itself says so. Stops of several shards are listed in a warning.
 */
export function mergedStop(shards: readonly Shard[]): Merged<RunStop> {
  const stops = shards
    .flatMap(({ label, result, offsetMs }) => {
      const stop = result.run.stop;
      return stop === undefined ? [] : [{ label, stop: { ...stop, atMs: Math.round((stop.atMs + offsetMs) * 1000) / 1000 } }];
    })
    .sort((a, b) => a.stop.atMs - b.stop.atMs);
  if (stops.length === 0) return { warnings: [] };
  const described = stops.map(({ label, stop }) => `${label} at ${(stop.atMs / 1000).toFixed(1)} s by ${JSON.stringify(stop.threshold)}`);
  const warnings = stops.length > 1 ? [`${stops.length} shards stopped themselves on a threshold: ${described.join('; ')}`] : [];
  return { merged: stops[0]!.stop, warnings };
}
