/**
 * Merge result files of shards of one run — same profile, different clients, run at the same
 * time on several machines — into one result file. The merged run keeps the shards' kind (`run`
 * or `verify`: what compare checks the load shape by) and records how many files it came from in
 * `run.shards`; its status is the worst of theirs.
 */
import { createHash } from 'node:crypto';
import { RpcloadError } from '../../errors.ts';
import { OUTCOME_SUCCESS } from '../../api/outcome.ts';
import { countAtOrBelowUs, createLatencyHistogram, percentilesMs } from '../../metrics/hdr.ts';
import { TOOL } from '../../version.ts';
import { httpClientNamed } from '../../profile/http-clients.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { loadShapeDifferences } from '../compare/load-shape.ts';
import type { Exemplar, Goodput, PhaseStats, RunInfo, RunResult, RunStatus, Stats } from '../../contract/result-schema.ts';
import type { Histogram } from '../../metrics/hdr.ts';
import { mergeExemplars } from '../../metrics/exemplars.ts';
import { mergeChecks, mergeThresholds } from './merge-checks.ts';
import { encodeMergedHistograms, sumLagByPhase, sumOptional, sumOverall, sumRecord } from './merge-histograms.ts';
import { mergeRateLimit } from './merge-rate-limit.ts';
import { mergeStats, phaseDurationS, sumCounts } from './merge-stats.ts';
import { mergeTimelines } from './merge-timeline.ts';
import { checkShardSet, toShards, type Shard } from './shard-set.ts';

export interface MergeOptions {
  /** Merge even when the shards' load shapes differ (the differences become warnings). */
  readonly force?: boolean;
  /** Merge the shards present of a run with shards missing (the result says so). */
  readonly partial?: boolean;
}

const STATUS_SEVERITY: readonly RunStatus[] = ['completed', 'running', 'aborted', 'failed'];
const distinct = (values: readonly string[]): string => [...new Set(values)].join(', ');

/** What makes files unmergeable; returns the load-shape differences that --force let through. */
function assertMergeable(inputs: readonly LabelledResult[], force: boolean, sharded: boolean): string[] {
  if (inputs.length < (sharded ? 1 : 2)) throw new RpcloadError('bad_flag', `merge: expected at least two result files, found ${inputs.length}`);
  const [first, ...rest] = inputs as [LabelledResult, ...LabelledResult[]];
  const seen = new Map<string, string>();
  for (const { label, result } of inputs) {
    const twin = seen.get(result.run.id);
    if (twin !== undefined) throw new RpcloadError('bad_input', `cannot merge: ${twin} and ${label} are the same run (run.id ${result.run.id}); merging would count it twice`);
    seen.set(result.run.id, label);
  }
  const differences = rest.flatMap(({ label, result }) => {
    const own = loadShapeDifferences(first.result, result, { ignoreClients: true });
    if (result.run.profile !== first.result.run.profile) own.unshift(`run.profile: ${JSON.stringify(first.result.run.profile)} vs ${JSON.stringify(result.run.profile)}`);
    return own.map((difference) => `${label}: ${difference}`);
  });
  if (differences.length > 0 && !force) {
    throw new RpcloadError('incomparable', `cannot merge: not shards of one run, compared with ${first.label}: ${differences.join('; ')}; use --force to merge anyway`);
  }
  return differences;
}

/** Labels key the per-shard evidence, so they must be unique. */
function uniqueLabels(inputs: readonly LabelledResult[]): LabelledResult[] {
  return inputs.map((input, i) => (inputs.findIndex((other) => other.label === input.label) === i ? input : { ...input, label: `${input.label}#${i + 1}` }));
}

type HttpClient = NonNullable<RunInfo['httpClient']>;

/**
 * The shards' HTTP client: theirs when they agree, mixed when they differ, absent when none recorded
 * one. `fast`, what files of earlier versions call rpcload's own client, is rpcload.
 */
export function mergedHttpClient(runs: readonly Pick<RunInfo, 'httpClient'>[]): Pick<RunInfo, 'httpClient'> {
  const named = (client: HttpClient): HttpClient => (client === 'mixed' ? client : (httpClientNamed(client) ?? client));
  const clients = new Set(runs.flatMap((r) => (r.httpClient === undefined ? [] : [named(r.httpClient)])));
  if (clients.size === 0) return {};
  return { httpClient: clients.size === 1 ? [...clients][0]! : 'mixed' };
}

function mergedRunInfo(shards: readonly Shard[], startMs: number): RunInfo {
  const runs = shards.map((s) => s.result.run);
  const status = runs.map((r) => r.status).reduce((worst, s) => (STATUS_SEVERITY.indexOf(s) > STATUS_SEVERITY.indexOf(worst) ? s : worst));
  const failures = shards.filter((s) => s.result.run.failure !== undefined).map((s) => `${s.label}: ${s.result.run.failure}`);
  const models = new Set(runs.map((r) => r.model));
  return {
    id: `merge-${createHash('sha256').update(runs.map((r) => r.id).sort().join('\n')).digest('hex').slice(0, 12)}`,
    kind: runs[0]!.kind,
    profile: runs[0]!.profile,
    startedAt: new Date(startMs).toISOString(),
    endedAt: runs.some((r) => r.endedAt === null) ? null : new Date(Math.max(...runs.map((r) => Date.parse(r.endedAt!)))).toISOString(),
    status,
    ...(failures.length > 0 ? { failure: failures.join('; ') } : {}),
    target: distinct(runs.map((r) => r.target)),
    embeddedTarget: runs.some((r) => r.embeddedTarget),
    model: models.size === 1 ? runs[0]!.model : 'mixed',
    workers: runs.reduce((sum, r) => sum + r.workers, 0),
    ...mergedHttpClient(runs),
    shards: runs.reduce((sum, r) => sum + r.shards, 0),
    node: distinct(runs.map((r) => r.node)),
    host: distinct(runs.map((r) => r.host)),
  };
}

/** The first shard's resolved profile, with the clients of every shard when they are lists. */
function mergedConfig(shards: readonly Shard[]): Record<string, unknown> {
  const config = { ...shards[0]!.result.config };
  const lists = shards.map((s) => s.result.config.clients);
  if (lists.every(Array.isArray)) {
    const byJson = new Map((lists as unknown[][]).flat().map((client) => [JSON.stringify(client), client]));
    config.clients = [...byJson.values()];
  }
  return config;
}

/** The files' connections summed; nothing when none of them counted any. */
function mergedConnections(results: readonly RunResult[]): Pick<RunResult['summary'], 'connections'> {
  const counted = results.flatMap((r) => (r.summary.connections === undefined ? [] : [r.summary.connections]));
  if (counted.length === 0) return {};
  return {
    connections: { opened: counted.reduce((sum, c) => sum + c.opened, 0), byProtocol: sumCounts(counted.map((c) => c.byProtocol)) },
  };
}

/** The shards' exemplars as one run's: their start times moved onto the merged run's clock, then merged exactly. */
function mergedExemplars(shards: readonly Shard[]): Record<string, Exemplar[]> {
  return mergeExemplars(
    shards.map((s) =>
      Object.fromEntries(
        Object.entries(s.result.exemplars ?? {}).map(([method, list]) => [
          method,
          list.map((e) => ({ ...e, intendedStartMs: Math.round((e.intendedStartMs + s.offsetMs) * 1000) / 1000 })),
        ]),
      ),
    ),
  );
}

export function mergeRuns(inputs: readonly LabelledResult[], options: MergeOptions = {}): RunResult {
  const shardSet = checkShardSet(inputs, options.partial ?? false);
  const forced = assertMergeable(inputs, options.force ?? false, shardSet !== null);
  const { shards, startMs } = toShards(uniqueLabels(inputs));
  const results = shards.map((s) => s.result);
  const endMs = Math.max(...shards.map((s) => Date.parse(s.result.run.startedAt) + s.result.summary.durationS * 1000));
  const durationS = (endMs - startMs) / 1000;
  const records = {
    byMethod: sumRecord(shards, 'byMethod'),
    byPhase: sumRecord(shards, 'byPhase'),
    byOutcome: sumRecord(shards, 'byOutcome'),
    byClient: sumRecord(shards, 'byClient'),
  };
  // Every name any shard lists, traffic or not; names without traffic have no histograms.
  const statsRecord = (key: keyof typeof records, durationOf: (parts: Stats[]) => number): Record<string, Stats> =>
    Object.fromEntries(
      [...new Set(results.flatMap((r) => Object.keys(r[key])))].map((name) => {
        const parts = results.map((r) => r[key][name]).filter((s): s is Stats => s !== undefined);
        const histograms = records[key].get(name) ?? { latency: createLatencyHistogram(), serviceTime: createLatencyHistogram() };
        return [name, mergeStats(parts, histograms, durationOf(parts))];
      }),
    );
  const latency = sumOverall(shards, 'latency');
  const serviceTime = sumOverall(shards, 'serviceTime');
  const scheduleLag = sumOptional(shards, 'scheduleLag', (r) => r.summary.scheduleLagMs !== null);
  const tokens = sumOptional(shards, 'tokens', (r) => r.summary.tokens.requests > 0);
  const scheduleLagByPhase = sumLagByPhase(shards);
  const byPhase: Record<string, PhaseStats> = statsRecord('byPhase', phaseDurationS);
  for (const [phase, lag] of scheduleLagByPhase) if (byPhase[phase] !== undefined) byPhase[phase] = { ...byPhase[phase], scheduleLagMs: percentilesMs(lag) };
  const merged: RunResult = {
    schema: 'rpcload/result@1',
    tool: { name: TOOL.name, version: TOOL.version },
    run: { ...mergedRunInfo(shards, startMs), shardSet: shardSet?.set },
    config: mergedConfig(shards),
    summary: {
      ...mergeStats(results.map((r) => r.summary), { latency, serviceTime }, durationS),
      durationS,
      scheduleLagMs: scheduleLag ? percentilesMs(scheduleLag) : null,
      tokens: {
        requests: results.reduce((sum, r) => sum + r.summary.tokens.requests, 0),
        failures: results.reduce((sum, r) => sum + r.summary.tokens.failures, 0),
        latencyMs: percentilesMs(tokens ?? createLatencyHistogram()),
        outcomes: sumCounts(results.map((r) => r.summary.tokens.outcomes)),
      },
      skipped: sumCounts(results.map((r) => r.summary.skipped)),
      ...mergedConnections(results),
      ...mergedGoodput(results, records.byOutcome.get(OUTCOME_SUCCESS)?.latency, durationS),
    },
    byMethod: statsRecord('byMethod', () => durationS),
    byClient: statsRecord('byClient', () => durationS),
    byPhase,
    byOutcome: statsRecord('byOutcome', () => durationS),
    timeline: mergeTimelines(shards.map((s) => ({ offsetS: s.offsetS, rows: s.result.timeline }))),
    histograms: encodeMergedHistograms({ latency, serviceTime, scheduleLag, scheduleLagByPhase, tokens, records }),
    rateLimit: mergeRateLimit(shards),
    checks: mergeChecks(shards),
    thresholds: [],
    warnings: [
      ...(shardSet?.warnings ?? []),
      ...forced.map((difference) => `merged with --force although the load shapes differ: ${difference}`),
      ...shards.flatMap((s) => s.result.warnings.map((warning) => `${s.label}: ${warning}`)),
    ],
  };
  const exemplars = shards.some((s) => s.result.exemplars !== undefined) ? { exemplars: mergedExemplars(shards) } : {};
  const { thresholds, warnings } = mergeThresholds(shards, merged);
  return { ...merged, thresholds, warnings: [...merged.warnings, ...warnings], ...exemplars };
}

/**
 * Goodput of the union: its successes within the shards' latency bound (one profile, one bound),
 * read off the merged success histogram; absent when no shard recorded goodput.
 */
function mergedGoodput(results: readonly RunResult[], success: Histogram | undefined, durationS: number): { goodput?: Goodput } {
  const recorded = results.flatMap((r) => (r.summary.goodput === undefined ? [] : [r.summary.goodput]));
  if (recorded.length === 0) return {};
  const latencyBoundMs = recorded.find((g) => g.latencyBoundMs !== null)?.latencyBoundMs ?? null;
  const requests = success === undefined ? 0 : latencyBoundMs === null ? success.totalCount : countAtOrBelowUs(success, latencyBoundMs * 1000);
  return { goodput: { requests, perS: durationS > 0 ? Math.round((requests / durationS) * 1000) / 1000 : 0, latencyBoundMs } };
}
