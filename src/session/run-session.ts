/**
 * A whole `rpcload run`, in named steps: open the target (starting the embedded reference server
 * when the plan has none), start the load, show it through a live view, checkpoint the result
 * file while it runs, and write the final file with its thresholds judged — also when the run is
 * aborted or fails.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { scanDataSet } from '../driver/data-rows.ts';
import type { LiveView, RunHeader, ViewSource } from '../contract/live-view.ts';
import type { RunInfo, RunResult, RunStatus, RunStop, SetupRecord, ShardInfo } from '../contract/result-schema.ts';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import type { RecordedData } from '../metrics/recorded-data.ts';
import { describeLoad, describePlan, runModel } from '../profile/describe-plan.ts';
import { registerPlanSecrets } from '../profile/plan-secrets.ts';
import type { Plan } from '../profile/plan.ts';
import { evaluateThreshold, goodputLatencyBoundMs } from '../profile/thresholds.ts';
import type { ServerStats } from '../server/options.ts';
import { planForShard, SHARD_ENV, type ShardSpec } from './distributed/shard-spec.ts';
import { assertSafeOutput } from '../util/output-files.ts';
import { startLoad, type RunningLoad } from './load.ts';
import { dimensionsOf } from './recorder-dimensions.ts';
import { buildRunResult, type BuildResultInput } from './result/build-result.ts';
import { describeWorkloads } from './result/workload-section.ts';
import { watchAbortOnFail } from './abort-on-fail.ts';
import { runSetupSteps, skippedSteps, type SetupValuesFile } from './setup-run.ts';
import { emptyRecordedData } from '../metrics/recorded-data.ts';
import { startCheckpoints } from './result/checkpoint-writer.ts';
import { assertResultPathWritable, defaultResultPath, STDOUT_PATH, writeFinalResultFile } from '../result-file/write-result.ts';
import { startSamplesWriter } from './samples-writer.ts';
import { aimedAt, insecureWarning, openTarget, type Target } from './target.ts';
import { DEFAULT_METRICS_BUCKETS_MS } from '../prometheus/metrics-snapshot.ts';
import { OtlpPush, otlpWarning, type OtlpOptions } from '../prometheus/otlp-push.ts';
import {
  metricsReadOptions,
  openMetricsEndpoint,
  whileServing,
  type MetricsEndpoint,
  type MetricsOptions,
} from '../prometheus/metrics-endpoint.ts';

export interface RunSessionOptions {
  readonly plan: Plan;
  /** Result file path; default results/<UTC timestamp>-<profile>.json. */
  readonly outPath?: string;
  readonly createView: (source: ViewSource) => LiveView;
  /** Abort = stop gracefully (Ctrl-C, SIGTERM, `q`). */
  readonly signal: AbortSignal;
  /** `--workers N`: worker threads carrying the load (at most one per client); default 1. */
  readonly workers?: number;
  /** `--shard I/N`: carry only this shard's clients and their share of the load. */
  readonly shard?: ShardSpec | null;
  /** `--start-at`: start the clock at this wall-clock instant (epoch ms) once tokens and connections are ready. */
  readonly startAtEpochMs?: number | null;
  /** `--out-samples FILE`: one JSON line per second of the run (see samples-writer.ts). */
  readonly samplesPath?: string;
  /** `--label TEXT`: stored as `run.label` (e.g. the release under test). */
  readonly label?: string;
  /** `--metrics-listen` and companions: serve live Prometheus metrics until the result file is written. */
  readonly metrics?: MetricsOptions | null;
  /** `--otlp-endpoint` (or OTEL_EXPORTER_OTLP_*): push the live metrics to an OpenTelemetry Collector; null = no push. */
  readonly otlp?: OtlpOptions | null;
  /** Told, before the load starts, what the run will also record as warnings (e.g. `--insecure`). */
  readonly warn?: (warning: string) => void;
  /** `--setup-values FILE`: setup ran elsewhere (`rpcload setup`); its values, and the file they came from. */
  readonly setupValues?: SetupValuesFile | null;
}

export interface RunSessionResult {
  readonly result: RunResult;
  /** Where the result file was written: the path asked for, or a fallback when that failed at the end. */
  readonly path: string;
  /** Why the result file is not at the path asked for; null when it is. */
  readonly writeProblem: string | null;
  readonly exitCode: ExitCode;
  /** The embedded server's own counts, when the run used it. */
  readonly serverStats: ServerStats | null;
  /** Resolves when the metrics endpoint has closed after its linger (at once without `--metrics-listen`): await it after reporting. */
  readonly metricsClosed: Promise<void>;
}

/** How the load ended, as the result file records it. */
interface Ending {
  readonly status: RunStatus;
  readonly failure?: string;
  readonly data: RecordedData;
  readonly notes: readonly string[];
}

export async function runSession(options: RunSessionOptions): Promise<RunSessionResult> {
  const shard = options.shard ?? null;
  const startAt = options.startAtEpochMs ?? null;
  // A shard's plan is its share; thresholds still hold the whole run's expressions (merge judges the union).
  const plan = shard === null ? options.plan : planForShard(options.plan, shard);
  const startedAt = new Date();
  const path =
    options.outPath ?? defaultResultPath(shard === null ? plan.name : `${shard.runId}.shard-${shard.index}-of-${shard.count}`, startedAt);
  // Found out now, not after the whole run.
  if (path !== STDOUT_PATH) await assertResultPathWritable(path);
  if (options.samplesPath !== undefined) await assertSafeOutput(options.samplesPath, '--out-samples', 'the samples file');
  // Every data file read once before any load: a ragged row or a missing column is a one-line error now, not mid-run.
  // A stop during the reading (a large file, a Ctrl-C) ends it at once; the run then ends as aborted before any load.
  for (const set of plan.data) if (!options.signal.aborted) await scanDataSet(set, options.signal);
  // Known to the redactor before any reply could echo them (tokens register as they are issued).
  registerPlanSecrets(plan);
  const upfront = upfrontWarnings(plan, startAt, Date.now());
  for (const warning of upfront) options.warn?.(warning);
  const runId = randomUUID();
  const labels = {
    runId: shard?.runId ?? runId,
    profile: options.plan.name,
    shard: shard === null ? '1/1' : `${shard.index}/${shard.count}`,
  };
  // Before any load: a port in use is a bad flag, found before the target is even opened.
  const metrics = options.metrics ?? null;
  const endpoint = metrics === null ? null : await openMetricsEndpoint(metrics, labels);
  const otlp = options.otlp ? await OtlpPush.start(options.otlp, labels) : null;
  const { value, closed } = await whileServing(endpoint, () =>
    runWithEndpoint(options, plan, { runId, path, startedAt, shard, startAt, upfront }, endpoint, otlp),
  );
  return { ...value, metricsClosed: closed };
}

/** The run itself, from opening the target to the written result file (the metrics endpoint, if any, already open). */
async function runWithEndpoint(
  options: RunSessionOptions,
  plan: Plan,
  run: { runId: string; path: string; startedAt: Date; shard: ShardSpec | null; startAt: number | null; upfront: readonly string[] },
  endpoint: MetricsEndpoint | null,
  otlp: OtlpPush | null,
): Promise<Omit<RunSessionResult, 'metricsClosed'>> {
  const { runId, path, startedAt, shard, startAt, upfront } = run;
  const target = await openTarget(plan);
  try {
    // The run id is known now: the baggage header (http.traceBaggage) carries the one shards share.
    const aimed = { ...aimedAt(plan, target), trace: { ...plan.trace, runId: shard?.runId ?? runId } };
    const setup = await setUp(aimed, options);
    if (setup.record?.status === 'failed') {
      // Nothing to tear down is known, and no load ran: the run failed before it began.
      const result = setupFailedResult(plan, options.plan, target, { runId, startedAt, label: options.label }, setup.record);
      const written = await writeFinalResultFile(path, result);
      return { result, path: written.path, writeProblem: written.problem, exitCode: ExitCode.failed, serverStats: null };
    }
    // An abortOnFail threshold that fails stops the load as a Ctrl-C would, and says why.
    const thresholdStop = new AbortController();
    let stop: RunStop | undefined;
    const load = startLoad(aimed, {
      workers: options.workers ?? 1,
      signal: AbortSignal.any([options.signal, thresholdStop.signal]),
      setupValues: setup.values,
      startAtEpochMs: startAt,
      // The OTLP push reads the same snapshot as the endpoint (with the endpoint's default buckets when there is none).
      metrics: metricsReadOptions(options.metrics ?? (otlp === null ? null : { bucketsMs: DEFAULT_METRICS_BUCKETS_MS, clients: 0 }), plan),
    });
    endpoint?.follow(() => load.metrics());
    otlp?.follow(() => load.metrics());
    // Before anything else runs: an unwritable samples path fails here, with nothing to undo.
    const samples = options.samplesPath === undefined ? null : startSamplesWriter(options.samplesPath, samplesSource(load));
    const record = new RunRecord(runId, plan, options.plan, target, load, startedAt, shard, startAt, options.label);
    const view = options.createView({ header: runHeader(plan, target.url, path), snapshot: () => load.snapshot() });
    const checkpoints = startCheckpoints({
      path,
      // A result written to stdout is written once, at the end.
      everyMs: path === STDOUT_PATH ? 2 ** 31 - 1 : plan.checkpointEveryMs,
      due: () => load.clock.started,
      input: async () => record.input(await load.recorded(), 'running', upfront, checkpoints.problem()),
    });
    view.start();
    const unwatch = watchAbortOnFail(plan.thresholds, load, (failed) => {
      stop = failed;
      options.warn?.(`threshold ${failed.threshold} failed ${(failed.atMs / 1000).toFixed(1)} s into the run: the run stops (abortOnFail)`);
      thresholdStop.abort();
    });
    let ending: Ending;
    try {
      ending = await awaitEnding(load);
    } finally {
      unwatch();
      view.stop();
      await checkpoints.stop();
    }
    const serverStats = target.stats === null ? null : await target.stats().catch(() => null);
    // The final push (bounded wait): what the collector got, or missed, goes into the result file.
    const otlpReport = otlp === null ? null : await otlp.finish();
    const otlpLost = otlpReport === null ? null : otlpWarning(otlpReport);
    if (otlpLost !== null) options.warn?.(otlpLost);
    const built = judged(
      plan,
      buildRunResult({
        ...record.input(ending.data, ending.status, [...upfront, ...ending.notes], checkpoints.problem(), ending.failure),
        ...(setup.record === null ? {} : { setup: setup.record }),
        ...(stop === undefined ? {} : { stop }),
      }),
    );
    samples?.finish(built.timeline);
    const samplesProblem = samples?.problem() ?? null;
    const warnings = [...built.warnings, ...(samplesProblem === null ? [] : [samplesProblem]), ...(otlpLost === null ? [] : [otlpLost])];
    const loaded: RunResult = { ...built, warnings, ...(otlpReport === null ? {} : { otlp: otlpReport }) };
    let written = await writeFinalResultFile(path, loaded);
    // Teardown after the file holds the load's figures: a second Ctrl-C during it loses nothing but the teardown.
    const teardown = await tearDown(aimed, options, setup);
    const result: RunResult = teardown === null ? loaded : withTeardown(loaded, teardown);
    if (teardown !== null) written = await writeFinalResultFile(written.path, result);
    // Not where it was asked for: whatever reads that path next must not take a stale file for this run's result.
    const judgedCode = exitCodeOf(result);
    const exitCode = written.problem !== null && judgedCode === ExitCode.ok ? ExitCode.failed : judgedCode;
    return { result, path: written.path, writeProblem: written.problem, exitCode, serverStats };
  } finally {
    await target.close();
  }
}

/**
 * What a run warns about before it starts (and records in its result file): certificates not
 * checked (`--insecure`), what a replay's scan found (a HAR's calls to other hosts), and a start
 * instant (`--start-at`) that has already passed — the run then starts at once, late, and a shard's
 * clock no longer agrees with the others'.
 */
function upfrontWarnings(plan: Plan, startAtEpochMs: number | null, nowMs: number): string[] {
  const warnings: string[] = [];
  const insecure = insecureWarning(plan.target, plan.http.insecure);
  if (insecure !== null) warnings.push(insecure);
  for (const workload of plan.workloads) if (workload.replay !== undefined) warnings.push(...workload.replay.notes);
  if (startAtEpochMs !== null && nowMs - startAtEpochMs >= 1000) {
    const lateS = Math.round((nowMs - startAtEpochMs) / 1000);
    warnings.push(
      `the start instant ${new Date(startAtEpochMs).toISOString()} (--start-at, ${SHARD_ENV.startAt}) passed ${lateS} s ago: the run starts at once, ${lateS} s late`,
    );
  }
  return warnings;
}

/** What the samples file reads from the running load. */
function samplesSource(load: RunningLoad): Parameters<typeof startSamplesWriter>[1] {
  return { snapshot: () => load.snapshot(), originEpochMs: () => load.clock.originEpochMs, started: () => load.clock.started };
}

/** The load's end: completed or aborted, or failed with what was recorded up to the failure. */
async function awaitEnding(load: RunningLoad): Promise<Ending> {
  try {
    const finished = await load.finished();
    return { status: finished.status, data: finished.data, notes: finished.notes };
  } catch (err) {
    // Bad configuration (e.g. no client can authenticate): nothing ran, so no result file.
    if (err instanceof RpcloadError) throw err;
    return { status: 'failed', failure: describeError(err), data: await load.recorded(), notes: [] };
  }
}

/** What the live views are told up front. */
function runHeader(plan: Plan, targetUrl: string, resultPath: string): RunHeader {
  return {
    profile: plan.name,
    target: targetUrl,
    model: describeLoad(plan.phases),
    phases: plan.phases.map((phase) => ({ name: phase.name, durationMs: phase.durationMs, load: describeLoad([phase]) })),
    totalDurationMs: plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0),
    resultPath,
    rateLimit: { limit: plan.rateLimit.limit, windowMs: plan.rateLimit.windowMs },
  };
}

/** The run's identity and configuration, from which every checkpoint and the final file are built. */
class RunRecord {
  constructor(
    private readonly id: string,
    private readonly plan: Plan,
    /** The whole run's plan: a shard's file describes the run it is part of, so shards merge as one. */
    private readonly runPlan: Plan,
    private readonly target: Target,
    private readonly load: RunningLoad,
    private readonly startedAt: Date,
    private readonly shard: ShardSpec | null,
    private readonly startAtEpochMs: number | null,
    private readonly label: string | undefined,
  ) {}

  input(
    data: RecordedData,
    status: RunStatus,
    notes: readonly string[],
    checkpointProblem: string | null,
    failure?: string,
  ): BuildResultInput {
    return {
      run: this.info(status, failure),
      config: describePlan(this.runPlan),
      data,
      dims: dimensionsOf(this.plan),
      checks: [],
      thresholds: [],
      warnings: checkpointProblem === null ? [...notes] : [...notes, checkpointProblem],
      goodputBoundMs: goodputLatencyBoundMs(this.plan.thresholds),
      workloads: describeWorkloads(this.plan),
    };
  }

  private info(status: RunStatus, failure: string | undefined): RunInfo {
    const { clock } = this.load;
    return {
      id: this.id,
      kind: 'run',
      label: this.label,
      profile: this.plan.name,
      startedAt: new Date(clock.started ? clock.originEpochMs : this.startedAt.getTime()).toISOString(),
      endedAt: status === 'running' ? null : new Date().toISOString(),
      status,
      failure,
      target: this.target.url,
      embeddedTarget: this.target.embedded,
      model: runModel(this.plan.phases),
      workers: this.load.workers,
      httpClient: this.plan.http.client,
      shards: 1,
      ...(this.shard === null ? {} : { shard: this.shardInfo() }),
      node: process.version,
      host: hostname(),
    };
  }

  private shardInfo(): ShardInfo {
    const { clock } = this.load;
    const startAt = this.startAtEpochMs;
    return {
      runId: this.shard!.runId,
      index: this.shard!.index,
      count: this.shard!.count,
      clients: this.plan.clients.length,
      startAt: startAt === null ? null : new Date(startAt).toISOString(),
      startLateMs: startAt === null || !clock.started ? null : Math.round((clock.originEpochMs - startAt) * 1000) / 1000,
    };
  }
}

/** The result with the plan's thresholds judged on its final figures. */
function judged(plan: Plan, draft: RunResult): RunResult {
  return { ...draft, thresholds: plan.thresholds.map((threshold) => evaluateThreshold(threshold, draft)) };
}

/** What setup came to: its record (null without setup) and the values for `{{setup.NAME}}`. */
interface SetupDone {
  readonly record: SetupRecord | null;
  readonly values: Readonly<Record<string, unknown>> | null;
}

/** Run the plan's setup, once, before the load — unless its values came from a file (setup ran elsewhere). */
async function setUp(plan: Plan & { readonly target: string }, options: RunSessionOptions): Promise<SetupDone> {
  if (plan.setup === null) return { record: null, values: options.setupValues?.values ?? null };
  const fromFile = options.setupValues ?? null;
  if (fromFile !== null)
    return { record: skippedSteps(plan, 'setup', `its values came from ${fromFile.file}`, fromFile.file), values: fromFile.values };
  if (options.signal.aborted) return { record: skippedSteps(plan, 'setup', 'interrupted before it ran'), values: null };
  const outcome = await runSetupSteps(plan, 'setup', null, options.signal);
  if (outcome.record.status === 'failed') options.warn?.(`setup failed: ${outcome.record.reason ?? 'unknown reason'}`);
  return { record: outcome.record, values: outcome.values };
}

/**
 * Run the plan's teardown once the load is over — also after an abort or a Ctrl-C (a second one
 * quits at once, teardown with it) — unless setup ran elsewhere (`rpcload teardown` then runs it
 * once for every shard). Null when there is none to run.
 */
async function tearDown(
  plan: Plan & { readonly target: string },
  options: RunSessionOptions,
  setup: SetupDone,
): Promise<SetupRecord | null> {
  if (plan.teardown === null) return null;
  if (options.setupValues != null)
    return skippedSteps(plan, 'teardown', 'setup ran elsewhere: run rpcload teardown with the same --setup-values');
  const outcome = await runSetupSteps(plan, 'teardown', setup.values, new AbortController().signal);
  if (outcome.record.status === 'failed') options.warn?.(`teardown failed: ${outcome.record.reason ?? 'unknown reason'}`);
  return outcome.record;
}

/** The result with its teardown record (a failed teardown is a warning too: something was left behind). */
function withTeardown(result: RunResult, teardown: SetupRecord): RunResult {
  const warning = teardown.status === 'failed' ? [`teardown failed: ${teardown.reason ?? 'unknown reason'}`] : [];
  return { ...result, teardown, warnings: [...result.warnings, ...warning] };
}

/** The result file of a run whose setup failed: no load ran, the run failed, the setup record says why. */
function setupFailedResult(
  plan: Plan,
  runPlan: Plan,
  target: Target,
  run: { readonly runId: string; readonly startedAt: Date; readonly label: string | undefined },
  setup: SetupRecord,
): RunResult {
  const failure = `setup failed: ${setup.reason ?? 'unknown reason'}`;
  return buildRunResult({
    run: {
      id: run.runId,
      kind: 'run',
      label: run.label,
      profile: plan.name,
      startedAt: run.startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      status: 'failed',
      failure,
      target: target.url,
      embeddedTarget: target.embedded,
      model: runModel(plan.phases),
      workers: 1,
      httpClient: plan.http.client,
      shards: 1,
      node: process.version,
      host: hostname(),
    },
    config: describePlan(runPlan),
    data: emptyRecordedData(),
    dims: dimensionsOf(plan),
    checks: [],
    thresholds: [],
    warnings: [failure],
    workloads: describeWorkloads(plan),
    setup,
  });
}

/**
 * 130 when interrupted; 1 when the run failed, sent no request at all (it measured nothing: no
 * verdict can pass on it), a threshold failed or a check of its own traffic failed (a broken limiter).
 */
function exitCodeOf(result: RunResult): ExitCode {
  // A threshold that stopped the run failed it; a stop from outside (Ctrl-C) interrupted it.
  if (result.run.status === 'aborted' && result.run.stop === undefined) return ExitCode.interrupted;
  const failed =
    result.run.stop !== undefined ||
    result.teardown?.status === 'failed' ||
    result.run.status === 'failed' ||
    result.summary.requests === 0 ||
    result.thresholds.some((t) => !t.ok) ||
    result.checks.some((c) => c.verdict === 'fail');
  return failed ? ExitCode.failed : ExitCode.ok;
}
