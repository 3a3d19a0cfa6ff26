/**
 * A whole `rpcload run`, in named steps: open the target (starting the embedded reference server
 * when the plan has none), start the load, show it through a live view, checkpoint the result
 * file while it runs, and write the final file with its thresholds judged — also when the run is
 * aborted or fails.
 */
import type { HttpDebug } from '../driver/http-debug.ts';
import type { LiveView, ViewSource } from '../contract/live-view.ts';
import { runHeader } from './run-header.ts';
import type { RunInfo, RunResult, RunStatus, RunStop, SetupRecord, ShardInfo } from '../contract/result-schema.ts';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import type { RecordedData } from '../metrics/recorded-data.ts';
import { describePlan, runModel } from '../profile/describe-plan.ts';
import type { Plan } from '../profile/plan.ts';
import { evaluateThreshold } from '../profile/threshold-results.ts';
import { goodputLatencyBoundMs } from '../profile/thresholds.ts';
import type { ServerStats } from '../server/options.ts';
import { planForShard, SHARD_ENV, type ShardSpec } from './distributed/shard-spec.ts';
import { startLoad, type RunningLoad } from './load.ts';
import { dimensionsOf } from './recorder-dimensions.ts';
import { watchAbortOnFail } from './abort-on-fail.ts';
import { runSetupSteps, skippedSteps, type SetupValuesFile } from './setup-run.ts';
import { describeWorkloads } from './result/workload-section.ts';
import { emptyRecordedData } from '../metrics/recorded-data.ts';
import { buildRunResult, type BuildResultInput } from './result/build-result.ts';
import { startSamplesWriter } from './samples-writer.ts';
import { SessionFrame } from './session-frame.ts';
import { aimedAt, insecureWarning, openTarget, type Target } from './target.ts';
import { DEFAULT_METRICS_BUCKETS_MS } from '../prometheus/metrics-snapshot.ts';
import { OtlpPush, otlpWarning, type OtlpOptions } from '../prometheus/otlp-push.ts';
import {
  metricsReadOptions,
  openMetricsEndpoint,
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
  /** `--http-debug[=N]`: print the load's first N exchanges (one thread: not with workers); null = off. */
  readonly httpDebug?: HttpDebug | null;
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
  const frame = await SessionFrame.prepare({
    kind: 'run',
    profile: plan.name,
    outPath: options.outPath,
    fileName: shard === null ? plan.name : `${shard.runId}.shard-${shard.index}-of-${shard.count}`,
    label: options.label,
    plan,
    otherOutputs:
      options.samplesPath === undefined
        ? []
        : [{ path: options.samplesPath, flag: '--out-samples', what: 'the samples file' }],
    warnings: upfrontWarnings(plan, startAt, Date.now()),
    warn: options.warn,
    signal: options.signal,
  });
  const labels = {
    runId: shard?.runId ?? frame.id,
    profile: options.plan.name,
    shard: shard === null ? '1/1' : `${shard.index}/${shard.count}`,
  };
  // Before any load: a port in use is a bad flag, found before the target is even opened.
  const metrics = options.metrics ?? null;
  const endpoint = metrics === null ? null : await openMetricsEndpoint(metrics, labels);
  const otlp = options.otlp ? await OtlpPush.start(options.otlp, labels) : null;
  const { value, closed } = await frame.serve(
    endpoint,
    () => openTarget(plan),
    (target) => runWithEndpoint(options, plan, frame, { shard, startAt }, target!, endpoint, otlp),
  );
  return { ...value, metricsClosed: closed };
}

/** The run itself, from the open target to the written result file (the metrics endpoint, if any, already open). */
async function runWithEndpoint(
  options: RunSessionOptions,
  plan: Plan,
  frame: SessionFrame,
  run: { shard: ShardSpec | null; startAt: number | null },
  target: Target,
  endpoint: MetricsEndpoint | null,
  otlp: OtlpPush | null,
): Promise<Omit<RunSessionResult, 'metricsClosed'>> {
  const { shard, startAt } = run;
  const upfront = frame.warnings;
  // The run id is known now: the baggage header (http.traceBaggage) carries the one shards share.
  const aimed = { ...aimedAt(plan, target), trace: { ...plan.trace, runId: shard?.runId ?? frame.id } };
  const setup = await setUp(aimed, options);
  if (setup.record?.status === 'failed') {
    // No load ran and nothing is known to tear down: the run failed before it began.
    const result = setupFailedResult(plan, options.plan, frame, target, setup.record);
    return { result, ...(await frame.writeFinal(result, ExitCode.failed)), serverStats: null };
  }
  // An abortOnFail threshold that fails stops the load as a Ctrl-C would, and says why.
  const thresholdStop = new AbortController();
  let stop: RunStop | undefined;
  const load = startLoad(aimed, {
    workers: options.workers ?? 1,
    signal: AbortSignal.any([options.signal, thresholdStop.signal]),
    setupValues: setup.values,
    httpDebug: options.httpDebug ?? null,
    startAtEpochMs: startAt,
    // The OTLP push reads the same snapshot as the endpoint (with the endpoint's default buckets when there is none).
    metrics: metricsReadOptions(
      options.metrics ?? (otlp === null ? null : { bucketsMs: DEFAULT_METRICS_BUCKETS_MS, clients: 0 }),
      plan,
    ),
  });
  endpoint?.follow(() => load.metrics());
  otlp?.follow(() => load.metrics());
  // Before anything else runs: an unwritable samples path fails here, with nothing to undo.
  const samples =
    options.samplesPath === undefined ? null : startSamplesWriter(options.samplesPath, samplesSource(load));
  const record = new RunRecord({ frame, plan, runPlan: options.plan, target, load, shard, startAtEpochMs: startAt });
  const header = runHeader(plan, target.url, frame.path);
  const view = options.createView({
    header,
    snapshot: () => load.snapshot(),
    gauges: () => load.gauges(),
    stopReason: () => (stop === undefined ? null : stopText(stop)),
  });
  const checkpoints = frame.startCheckpoints({
    everyMs: plan.checkpointEveryMs,
    plannedMs: header.totalDurationMs,
    due: () => load.clock.started,
    input: async () => record.input(await load.recorded(), 'running', upfront),
  });
  view.start();
  const unwatch = watchAbortOnFail(plan.thresholds, load, (failed) => {
    stop = failed;
    options.warn?.(`${stopText(failed)}: the run stops (abortOnFail)`);
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
      ...record.input(ending.data, ending.status, [...upfront, ...ending.notes], ending.failure),
      ...(setup.record === null ? {} : { setup: setup.record }),
      ...(stop === undefined ? {} : { stop }),
    }),
  );
  samples?.finish(built.timeline);
  const samplesProblem = samples?.problem() ?? null;
  const warnings = [
    ...built.warnings,
    ...(samplesProblem === null ? [] : [samplesProblem]),
    ...(otlpLost === null ? [] : [otlpLost]),
  ];
  const loaded: RunResult = { ...built, warnings, ...(otlpReport === null ? {} : { otlp: otlpReport }) };
  const written = await frame.writeFinal(loaded, exitCodeOf(loaded));
  // Teardown after the file holds the load's figures: a second Ctrl-C during it loses nothing but the teardown.
  const teardown = await tearDown(aimed, options, setup);
  if (teardown === null) return { result: loaded, ...written, serverStats };
  const result = withTeardown(loaded, teardown);
  return { result, ...(await frame.writeFinal(result, exitCodeOf(result))), serverStats };
}

/** Why a threshold stopped the run, in one line. */
function stopText(stop: RunStop): string {
  return `threshold ${stop.threshold} failed ${(stop.atMs / 1000).toFixed(1)} s into the run`;
}

/**
 * What a run warns about before it starts (and records in its result file): certificates not
 * checked (`--insecure`), and a start instant (`--start-at`) that has already passed — the run then
 * starts at once, late, and a shard's clock no longer agrees with the others'.
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
  return {
    snapshot: () => load.snapshot(),
    originEpochMs: () => load.clock.originEpochMs,
    started: () => load.clock.started,
  };
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

/** What a run's result files are built from, besides what its load recorded. */
interface RunRecordParts {
  readonly frame: SessionFrame;
  /** The plan this process carries (a shard's share). */
  readonly plan: Plan;
  /** The whole run's plan: a shard's file describes the run it is part of, so shards merge as one. */
  readonly runPlan: Plan;
  readonly target: Target;
  readonly load: RunningLoad;
  readonly shard: ShardSpec | null;
  readonly startAtEpochMs: number | null;
}

/** The run's identity and configuration, from which every checkpoint and the final file are built. */
class RunRecord {
  constructor(private readonly parts: RunRecordParts) {}

  input(data: RecordedData, status: RunStatus, notes: readonly string[], failure?: string): BuildResultInput {
    const { plan, runPlan, frame } = this.parts;
    const checkpointProblem = frame.checkpointProblem();
    return {
      run: this.info(status, failure),
      config: describePlan(runPlan),
      data,
      dims: dimensionsOf(plan),
      checks: [],
      thresholds: [],
      warnings: checkpointProblem === null ? [...notes] : [...notes, checkpointProblem],
      goodputBoundMs: goodputLatencyBoundMs(plan.thresholds),
      workloads: describeWorkloads(plan),
    };
  }

  private info(status: RunStatus, failure: string | undefined): RunInfo {
    const { frame, plan, target, load, shard } = this.parts;
    return frame.runInfo({
      status,
      failure,
      target,
      ...(load.clock.started ? { startedAtEpochMs: load.clock.originEpochMs } : {}),
      model: runModel(plan.phases),
      workers: load.workers,
      httpClient: plan.http.client,
      ...(shard === null ? {} : { shard: this.shardInfo(shard) }),
    });
  }

  private shardInfo(shard: ShardSpec): ShardInfo {
    const { clock } = this.parts.load;
    const startAt = this.parts.startAtEpochMs;
    return {
      runId: shard.runId,
      index: shard.index,
      count: shard.count,
      clients: this.parts.plan.clients.length,
      startAt: startAt === null ? null : new Date(startAt).toISOString(),
      startLateMs:
        startAt === null || !clock.started ? null : Math.round((clock.originEpochMs - startAt) * 1000) / 1000,
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
  const fromFile = options.setupValues ?? null;
  // A shard's plan carries no setup (it never runs one): the whole plan's is what the file skipped.
  if (fromFile !== null && options.plan.setup !== null) {
    const record = skippedSteps(options.plan, 'setup', `its values came from ${fromFile.file}`, fromFile.file);
    return { record, values: fromFile.values };
  }
  if (plan.setup === null) return { record: null, values: options.setupValues?.values ?? null };
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
  if (options.setupValues != null && options.plan.teardown !== null)
    return skippedSteps(
      options.plan,
      'teardown',
      'setup ran elsewhere: run rpcload teardown with the same --setup-values',
    );
  if (plan.teardown === null) return null;
  const outcome = await runSetupSteps(plan, 'teardown', setup.values, new AbortController().signal);
  if (outcome.record.status === 'failed')
    options.warn?.(`teardown failed: ${outcome.record.reason ?? 'unknown reason'}`);
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
  frame: SessionFrame,
  target: Target,
  setup: SetupRecord,
): RunResult {
  const failure = `setup failed: ${setup.reason ?? 'unknown reason'}`;
  return buildRunResult({
    run: frame.runInfo({
      status: 'failed',
      failure,
      target,
      model: runModel(plan.phases),
      workers: 1,
      httpClient: plan.http.client,
    }),
    config: describePlan(runPlan),
    data: emptyRecordedData(),
    dims: dimensionsOf(plan),
    checks: [],
    thresholds: [],
    warnings: [...frame.warnings, failure],
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
