/**
 * Building a run's result record (`rpcload/result@1`) from the recorder's data, checks,
 * thresholds and warnings.
 */
import type { DimensionData, EncodedPair, RecordedData } from '../../metrics/recorded-data.ts';
import type { RecorderDimensions } from '../../metrics/sample.ts';
import { OUTCOME_SUCCESS } from '../../api/outcome.ts';
import { countAtOrBelowUs, decodeHistogram } from '../../metrics/hdr.ts';
import type { ReplaySource } from '../../contract/replay-source-schema.ts';
import { passiveRateLimitChecks } from '../../verify/passive/rate-limit-verdicts.ts';
import { emptyTimelineRow } from '../../metrics/timeline.ts';
import { REDACTED, redactSecrets } from '../../util/redact.ts';
import { TOOL } from '../../version.ts';
import {
  RESULT_SCHEMA_ID,
  type CheckResult,
  type Goodput,
  type Exemplar,
  type PhaseStats,
  type RunInfo,
  type RunResult,
  type Stats,
  type RunStop,
  type SetupRecord,
  type ThresholdResult,
  type TimelineRow,
} from '../../contract/result-schema.ts';
import { workloadSection, type WorkloadDescription } from './workload-section.ts';
import { rateLimitSection } from './rate-limit-section.ts';
import { readEncoded, round3, statsOf } from './result-stats.ts';
import { generatedWarnings } from './result-warnings.ts';

export interface BuildResultInput {
  readonly run: RunInfo;
  /** The resolved profile/plan, secrets already redacted by the caller (redacted again here). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly data: RecordedData;
  /** Names listed in the result even without traffic, in this order (names only in `data` follow). */
  readonly dims: RecorderDimensions;
  readonly checks: readonly CheckResult[];
  readonly thresholds: readonly ThresholdResult[];
  readonly warnings: readonly string[];
  /** The latency bound (ms) a success must meet to count as goodput (see goodputLatencyBoundMs); null or absent: none. */
  readonly goodputBoundMs?: number | null;
  /** The replay's source, without what the run made of it (sent, run-time skips: read off `data` here). */
  readonly replay?: Omit<ReplaySource, 'sent'>;
  /** The run's workloads, described from its plan: their figures are read off `data` (byWorkload). */
  readonly workloads?: readonly WorkloadDescription[];
  /** The run's setup and teardown, when it had them. */
  readonly setup?: SetupRecord;
  readonly teardown?: SetupRecord;
  /** Why the run stopped itself before its end (an abortOnFail threshold failed). */
  readonly stop?: RunStop;
}

/** A target URL without credentials in it (`https://user:pass@host` → `https://[redacted]@host`). */
function withoutCredentials(target: string): string {
  try {
    const url = new URL(target);
    if (url.username === '' && url.password === '') return target;
    return target.replace(/\/\/[^/@]*@/, `//${REDACTED}@`);
  } catch {
    return target;
  }
}

/** Wall-clock duration when the run has ended, else up to the latest completion recorded. */
function durationSOf(run: RunInfo, data: RecordedData): number {
  const elapsedMs = run.endedAt === null ? NaN : Date.parse(run.endedAt) - Date.parse(run.startedAt);
  return round3((elapsedMs >= 0 ? elapsedMs : data.lastAtMs) / 1000);
}

/** Names in dimension order, then any others present in the data (e.g. merged from elsewhere). */
function orderedNames(declared: readonly string[], present: Readonly<Record<string, unknown>>): string[] {
  const extra = Object.keys(present).filter((name) => !declared.includes(name));
  return [...new Set([...declared, ...extra.sort()])];
}

function statsByName(
  declared: readonly string[],
  data: Readonly<Record<string, DimensionData>>,
  durationS: number,
): Record<string, Stats> {
  const out: Record<string, Stats> = {};
  for (const name of orderedNames(declared, data)) out[name] = statsOf(data[name], durationS);
  return out;
}

function statsByOutcome(data: Readonly<Record<string, EncodedPair>>, durationS: number): Record<string, Stats> {
  const out: Record<string, Stats> = {};
  for (const [key, pair] of Object.entries(data)) {
    const stats = statsOf(pair, durationS);
    out[key] = { ...stats, outcomes: { [key]: stats.requests } };
  }
  return out;
}

/** Per-phase stats, with the schedule lag of each open-model phase. */
function phaseStats(declared: readonly string[], data: RecordedData, durationS: number): Record<string, PhaseStats> {
  const out: Record<string, PhaseStats> = statsByName(declared, data.byPhase, durationS);
  for (const [name, encoded] of Object.entries(data.scheduleLagByPhase)) {
    const lag = readEncoded(encoded);
    if (lag.count > 0 && out[name] !== undefined) out[name] = { ...out[name], scheduleLagMs: lag.percentiles };
  }
  return out;
}

/** Successes within the latency bound, from the success outcome's latency histogram. */
function goodputOf(data: RecordedData, boundMs: number | null, durationS: number): Goodput {
  const success = data.byOutcome[OUTCOME_SUCCESS];
  const histogram = success === undefined ? null : decodeHistogram(success.latency);
  const requests =
    histogram === null ? 0 : boundMs === null ? histogram.totalCount : countAtOrBelowUs(histogram, boundMs * 1000);
  return { requests, perS: durationS > 0 ? round3(requests / durationS) : 0, latencyBoundMs: boundMs };
}

const pairs = (data: Readonly<Record<string, EncodedPair>>): Record<string, EncodedPair> =>
  Object.fromEntries(
    Object.entries(data).map(([name, d]) => [name, { latency: d.latency, serviceTime: d.serviceTime }]),
  );

/** The recorded rows, padded with zero rows to the end of the run when it saw traffic. */
function timelineOf(rows: readonly TimelineRow[], durationS: number): TimelineRow[] {
  const out = rows.map((row) => ({ ...row }));
  if (out.length === 0) return out;
  for (let t = out.length; t < Math.ceil(durationS); t++) out.push(emptyTimelineRow(t));
  return out;
}

/** The connections the load opened, by negotiated protocol (nothing for a run that opened none, e.g. verify). */
function connectionsOf(data: RecordedData): Pick<RunResult['summary'], 'connections'> {
  const byProtocol = { ...data.connections };
  const opened = Object.values(byProtocol).reduce((sum, n) => sum + n, 0);
  return opened === 0 ? {} : { connections: { opened, byProtocol } };
}

/** Requests sent again after a stale connection: for a run whose load opened connections. */
function staleRetriesOf(data: RecordedData): Pick<RunResult, 'staleConnectionRetries'> {
  const opened = Object.values(data.connections ?? {}).reduce((sum, n) => sum + n, 0);
  const retries = data.staleConnectionRetries ?? 0;
  return opened === 0 && retries === 0 ? {} : { staleConnectionRetries: retries };
}

/** The recorded exemplars as the result file lists them (copies: the file owns its records). */
function exemplarsOf(exemplars: NonNullable<RecordedData['exemplars']>): Record<string, Exemplar[]> {
  return Object.fromEntries(
    Object.entries(exemplars).map(([method, list]) => [method, list.map((e) => ({ ...e, kinds: [...e.kinds] }))]),
  );
}

/**
 * The `rpcload/result@1` record of a run from its recorded data. Every figure is read off the
 * encoded histograms and counters in `data`, so a live recorder's serialize(), the same data after
 * a JSON round trip, and a merge of parts give identical results. The passive rate-limit verdicts
 * are appended unless `checks` already holds a check with the same id; warnings the figures imply
 * are appended to the caller's.
 */
export function buildRunResult(input: BuildResultInput): RunResult {
  const { run, dims } = input;
  // The whole run's selection ('') exists only for a threshold judged live; the file has the summary for it.
  const data = withoutWholeRunSelection(input.data);
  const durationS = durationSOf(run, data);
  const lag = readEncoded(data.scheduleLag);
  const tokens = readEncoded(data.tokens.latency);
  const given = new Set(input.checks.map((c) => c.id));
  const passive = data.ledger === null ? [] : passiveRateLimitChecks(data.ledger).filter((c) => !given.has(c.id));
  // The one replay workload's record also stands at the top level, where readers before workloads look.
  const replays = (input.workloads ?? []).filter((w) => w.replay !== undefined);
  const replay =
    input.replay !== undefined
      ? replayRecord(input.replay, { sent: requestsOf(data.overall), skipped: data.skipped })
      : replays.length === 1
        ? workloadReplay(replays[0]!, data)
        : undefined;
  const result: RunResult = {
    schema: RESULT_SCHEMA_ID,
    tool: { name: TOOL.name, version: TOOL.version },
    run: { ...run, target: withoutCredentials(run.target), ...(input.stop === undefined ? {} : { stop: input.stop }) },
    config: redactSecrets({ ...input.config }),
    summary: {
      ...statsOf(data.overall, durationS),
      durationS,
      scheduleLagMs: lag.count > 0 ? lag.percentiles : null,
      tokens: {
        requests: tokens.count,
        failures: tokens.count - (data.tokens.outcomes.success ?? 0),
        latencyMs: tokens.percentiles,
        outcomes: { ...data.tokens.outcomes },
      },
      skipped: { ...data.skipped },
      ...connectionsOf(data),
      goodput: goodputOf(data, input.goodputBoundMs ?? null, durationS),
    },
    byMethod: statsByName(dims.methods, data.byMethod, durationS),
    byClient: statsByName(dims.clients, data.byClient, durationS),
    byPhase: phaseStats(dims.phases, data, durationS),
    byOutcome: statsByOutcome(data.byOutcome, durationS),
    ...(data.byReplica === undefined ? {} : { byReplica: statsByName(dims.replicas ?? [], data.byReplica, durationS) }),
    ...(input.workloads === undefined
      ? {}
      : {
          byWorkload: workloadSection(input.workloads, data, durationS, input.goodputBoundMs ?? null, (w) =>
            w.replay === undefined ? undefined : workloadReplay(w, data),
          ),
        }),
    ...(data.byTag === undefined ? {} : { byTag: statsByName([], data.byTag, durationS) }),
    ...(data.bySelector === undefined ? {} : { bySelector: selectorStats(data.bySelector, durationS) }),
    ...(input.setup === undefined ? {} : { setup: input.setup }),
    ...(input.teardown === undefined ? {} : { teardown: input.teardown }),
    timeline: timelineOf(data.timeline, durationS),
    histograms: {
      latency: data.overall.latency,
      serviceTime: data.overall.serviceTime,
      ...(lag.count > 0 ? { scheduleLag: data.scheduleLag, scheduleLagByPhase: { ...data.scheduleLagByPhase } } : {}),
      ...(tokens.count > 0 ? { tokens: data.tokens.latency } : {}),
      byMethod: pairs(data.byMethod),
      byPhase: pairs(data.byPhase),
      byOutcome: pairs(data.byOutcome),
      byClient: pairs(data.byClient),
      ...(data.byReplica === undefined ? {} : { byReplica: pairs(data.byReplica) }),
      ...(data.byWorkload === undefined
        ? {}
        : { byWorkload: withLag(pairs(data.byWorkload), data.scheduleLagByWorkload ?? {}) }),
      ...(data.byTag === undefined ? {} : { byTag: pairs(data.byTag) }),
      ...(data.bySelector === undefined
        ? {}
        : {
            bySelector: withLag(
              pairs(data.bySelector),
              Object.fromEntries(
                Object.entries(data.bySelector).flatMap(([key, d]) =>
                  d.scheduleLag === undefined ? [] : [[key, d.scheduleLag]],
                ),
              ),
            ),
          }),
    },
    rateLimit: data.ledger === null ? null : rateLimitSection(data.ledger),
    checks: redactSecrets([...input.checks, ...passive]),
    thresholds: input.thresholds.map((t) => ({ ...t })),
    warnings: [...input.warnings],
    ...(data.exemplars === undefined ? {} : { exemplars: exemplarsOf(data.exemplars) }),
    ...(replay === undefined ? {} : { replay }),
    ...staleRetriesOf(data),
  };
  const stated = [...input.warnings, ...(data.notices ?? []).filter((n) => !input.warnings.includes(n))];
  const implied = generatedWarnings(result).filter((w) => !stated.includes(w));
  return { ...result, warnings: [...stated, ...implied] };
}

function withoutWholeRunSelection(data: RecordedData): RecordedData {
  if (data.bySelector?.[''] === undefined) return data;
  const { bySelector, ...others } = data;
  const { '': _, ...rest } = bySelector;
  return Object.keys(rest).length > 0 ? { ...others, bySelector: rest } : others;
}

/** Each threshold selection's stats, with its schedule lag when it had open-model requests. */
function selectorStats(data: NonNullable<RecordedData['bySelector']>, durationS: number): Record<string, PhaseStats> {
  const out: Record<string, PhaseStats> = {};
  for (const [key, d] of Object.entries(data)) {
    const lag = d.scheduleLag === undefined ? null : readEncoded(d.scheduleLag);
    out[key] = {
      ...statsOf(d, durationS),
      ...(lag !== null && lag.count > 0 ? { scheduleLagMs: lag.percentiles } : {}),
    };
  }
  return out;
}

/** Histogram pairs with their schedule lag where there is one. */
function withLag(
  pairsByName: Record<string, EncodedPair>,
  lag: Readonly<Record<string, string>>,
): Record<string, EncodedPair & { scheduleLag?: string }> {
  return Object.fromEntries(
    Object.entries(pairsByName).map(([name, pair]) => [
      name,
      lag[name] === undefined ? pair : { ...pair, scheduleLag: lag[name] },
    ]),
  );
}

/** The replay's source with what the run made of its calls: those sent, and those its clients could not send. */
function replayRecord(
  source: Omit<ReplaySource, 'sent'>,
  run: { readonly sent: number; readonly skipped: Readonly<Record<string, number>> },
): ReplaySource {
  const skipped = { ...source.skipped };
  for (const [reason, n] of Object.entries(run.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
  return { ...source, sent: run.sent, skipped };
}

/** A replay workload's record: its source, with the calls it sent and the ones its clients could not. */
function workloadReplay(workload: WorkloadDescription, data: RecordedData): ReplaySource {
  return replayRecord(workload.replay!, {
    sent: requestsOf(data.byWorkload?.[workload.name]),
    skipped: data.skippedByWorkload?.[workload.name] ?? {},
  });
}

/** Requests of a slice: the sum of its outcomes. */
function requestsOf(slice: DimensionData | undefined): number {
  return Object.values(slice?.outcomes ?? {}).reduce((sum, n) => sum + n, 0);
}
