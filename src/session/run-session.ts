import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import { Recorder } from '../metrics/recorder.ts';
import type { RecordedData } from '../metrics/recorded-data.ts';
import type { RecorderDimensions } from '../metrics/sample.ts';
import { describePlan } from '../profile/describe-plan.ts';
import type { PlanOverrides } from '../profile/build-plan.ts';
import type { Plan } from '../profile/plan.ts';
import { buildRunResult, type BuildResultInput } from './result/build-result.ts';
import { defaultResultPath, writeResultFile } from './result/result-file.ts';
import type { RunInfo, RunResult, RunStatus } from '../contract/result-schema.ts';
import type { ServerStats } from '../server/options.ts';
import type { LiveView, RunHeader, ViewSource } from '../contract/live-view.ts';
import { startCheckpointWriter } from './result/checkpoint-writer.ts';
import { planMethods } from '../driver/compiled-plan.ts';
import { startEmbeddedTarget, type Target } from './target.ts';
import { describeLoad, runModel } from './load-description.ts';
import { LoadWorkers } from './workers/load-workers.ts';
import { RunClock } from '../driver/run-clock.ts';
import { runLoad, type LoadRunOutcome } from '../driver/run-load.ts';
import { usableWorkers } from './workers/shard-plan.ts';

/**
 * A whole `rpcload run`: resolve the target (starting the embedded reference server in a worker
 * when the plan has none), record the load run, show it through a live view, checkpoint the
 * result file while running, and write the final file — also when the run is aborted or fails.
 */
export interface RunSessionOptions {
  readonly plan: Plan;
  /** Result file path; default results/<UTC timestamp>-<profile>.json. */
  readonly outPath?: string;
  readonly createView: (source: ViewSource) => LiveView;
  /** Abort = stop gracefully (Ctrl-C, SIGTERM, `q`). */
  readonly signal: AbortSignal;
  /**
   * `--workers N`: run the load in N worker threads (at most one per client), each rebuilding the
   * plan from this interpolated profile and overrides (a Plan holds functions and cannot be sent).
   */
  readonly workers?: { readonly count: number; readonly profile: unknown; readonly overrides: PlanOverrides };
}

export interface RunSessionResult {
  readonly result: RunResult;
  readonly path: string;
  readonly exitCode: ExitCode;
  /** The embedded server's own counts, when the run used it. */
  readonly serverStats: ServerStats | null;
}

/** Stopped workers get the driver's grace and drain time plus a margin before they are terminated. */
const WORKER_STOP_TIMEOUT_MS = 15_000;

function dimensionsOf(plan: Plan): RecorderDimensions {
  return { methods: planMethods(plan), phases: plan.phases.map((p) => p.name), clients: plan.clients.map((c) => c.id) };
}

export async function runSession(options: RunSessionOptions): Promise<RunSessionResult> {
  const { plan } = options;
  const startedAt = new Date();
  const path = options.outPath ?? defaultResultPath(plan.name, startedAt);
  const target: Target = plan.target === null ? await startEmbeddedTarget(plan) : { url: plan.target, embedded: false, stats: null, close: () => Promise.resolve() };
  const dims = dimensionsOf(plan);
  // With workers, this recorder stays empty: it only supplies zero figures until they report.
  const recorder = new Recorder(dims, { rateLimit: plan.rateLimit });
  const clock = new RunClock();
  const workerCount = options.workers === undefined ? 1 : usableWorkers(options.workers.count, plan);
  const workers =
    options.workers === undefined || workerCount === 1
      ? null
      : new LoadWorkers({
          count: workerCount,
          profile: options.workers.profile,
          source: plan.source,
          overrides: options.workers.overrides,
          clients: plan.clients,
          target: target.url,
          clock,
          signal: options.signal,
          empty: (nowMs) => recorder.snapshot(nowMs),
          stopTimeoutMs: WORKER_STOP_TIMEOUT_MS,
        });
  const runId = randomUUID();
  const header: RunHeader = {
    profile: plan.name,
    target: target.url,
    model: describeLoad(plan.phases),
    phases: plan.phases.map((phase) => ({ name: phase.name, durationMs: phase.durationMs, load: describeLoad([phase]) })),
    totalDurationMs: plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0),
    resultPath: path,
    rateLimit: { limit: plan.rateLimit.limit, windowMs: plan.rateLimit.windowMs },
  };
  const info = (status: RunStatus, failure?: string): RunInfo => ({
    id: runId,
    kind: 'run',
    profile: plan.name,
    startedAt: new Date(clock.started ? clock.originEpochMs : startedAt.getTime()).toISOString(),
    endedAt: status === 'running' ? null : new Date().toISOString(),
    status,
    ...(failure === undefined ? {} : { failure }),
    target: target.url,
    embeddedTarget: target.embedded,
    model: runModel(plan.phases),
    workers: workerCount,
    shards: 1,
    node: process.version,
    host: hostname(),
  });
  const notes: string[] = [];
  let checkpointProblem: string | null = null;
  const input = (data: RecordedData, status: RunStatus, failure?: string): BuildResultInput => ({
    run: info(status, failure),
    config: describePlan(plan),
    data,
    dims,
    checks: [],
    thresholds: [],
    warnings: [...notes, ...(checkpointProblem === null ? [] : [checkpointProblem])],
  });
  const recorded = (): Promise<RecordedData> => (workers === null ? Promise.resolve(recorder.serialize()) : workers.recorded());

  const view = options.createView({ header, snapshot: () => (workers === null ? recorder.snapshot(clock.now()) : workers.snapshot(clock.now())) });
  const writer = startCheckpointWriter();
  let checkpointing: Promise<void> = Promise.resolve();
  const checkpoint = setInterval(() => {
    if (!clock.started) return;
    // A failed checkpoint must not stop the run; the final file says it happened.
    checkpointing = checkpointing
      .then(async () => writer.write(path, input(await recorded(), 'running')))
      .catch((err: unknown) => void (checkpointProblem ??= `a checkpoint of the result file could not be written: ${describeError(err)}`));
  }, plan.checkpointEveryMs);
  checkpoint.unref();

  let status: RunStatus = 'failed';
  let failure: string | undefined;
  let data: RecordedData | null = null;
  view.start();
  try {
    let outcome: LoadRunOutcome;
    if (workers === null) outcome = await runLoad({ plan, baseUrl: target.url, recorder, clock, signal: options.signal });
    else {
      const run = await workers.run();
      if (run.reported < workerCount) notes.push(`${workerCount - run.reported} of ${workerCount} load workers did not report in time after the stop: their requests are missing from this result`);
      data = run.data;
      outcome = run;
    }
    status = outcome.status;
  } catch (err) {
    if (err instanceof RpcloadError) {
      // Bad configuration (e.g. no client can authenticate): nothing ran, so no result file.
      await target.close();
      throw err;
    }
    failure = describeError(err);
  } finally {
    view.stop();
    clearInterval(checkpoint);
    await checkpointing;
    await writer.close();
  }
  const serverStats = target.stats === null ? null : await target.stats().catch(() => null);
  await target.close();

  const draft = buildRunResult(input(data ?? (await recorded()), status, failure));
  const thresholds = plan.thresholds.map((threshold) => threshold.evaluate(draft));
  const result: RunResult = { ...draft, thresholds };
  await writeResultFile(path, result);
  const exitCode = status === 'aborted' ? ExitCode.interrupted : status === 'failed' || thresholds.some((t) => !t.ok) ? ExitCode.failed : ExitCode.ok;
  return { result, path, exitCode, serverStats };
}

