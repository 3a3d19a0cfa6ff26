import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import { Recorder } from '../metrics/recorder.ts';
import type { RecorderDimensions } from '../metrics/sample.ts';
import { describePlan } from '../profile/index.ts';
import type { Plan } from '../profile/plan.ts';
import { buildRunResult, defaultResultPath, writeResultFile } from '../results/index.ts';
import type { RunInfo, RunResult, RunStatus } from '../results/result-schema.ts';
import type { ServerStats } from '../server/options.ts';
import type { LiveView, RunHeader, ViewSource } from '../ui/view.ts';
import { planMethods } from './compiled-plan.ts';
import { startEmbeddedTarget, type Target } from './embedded-target.ts';
import { describeLoad, runModel } from './load-description.ts';
import { RunClock } from './run-clock.ts';
import { runLoad } from './run-load.ts';

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
}

export interface RunSessionResult {
  readonly result: RunResult;
  readonly path: string;
  readonly exitCode: ExitCode;
  /** The embedded server's own counts, when the run used it. */
  readonly serverStats: ServerStats | null;
}

function dimensionsOf(plan: Plan): RecorderDimensions {
  return { methods: planMethods(plan), phases: plan.phases.map((p) => p.name), clients: plan.clients.map((c) => c.id) };
}

export async function runSession(options: RunSessionOptions): Promise<RunSessionResult> {
  const { plan } = options;
  const startedAt = new Date();
  const path = options.outPath ?? defaultResultPath(plan.name, startedAt);
  const target: Target = plan.target === null ? await startEmbeddedTarget(plan) : { url: plan.target, embedded: false, stats: null, close: () => Promise.resolve() };
  const dims = dimensionsOf(plan);
  const recorder = new Recorder(dims, { rateLimit: plan.rateLimit });
  const clock = new RunClock();
  const runId = randomUUID();
  const header: RunHeader = {
    profile: plan.name,
    target: target.url,
    model: describeLoad(plan.phases),
    phases: plan.phases.map((phase) => ({ name: phase.name, durationMs: phase.durationMs, load: describeLoad([phase]) })),
    totalDurationMs: plan.phases.reduce((sum, phase) => sum + phase.durationMs, 0),
    resultPath: path,
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
    workers: 1,
    shards: 1,
    node: process.version,
    host: hostname(),
  });
  let checkpointProblem: string | null = null;
  const build = (status: RunStatus, failure?: string): RunResult =>
    buildRunResult({ run: info(status, failure), config: describePlan(plan), data: recorder.serialize(), dims, checks: [], thresholds: [], warnings: checkpointProblem === null ? [] : [checkpointProblem] });

  const view = options.createView({ header, snapshot: () => recorder.snapshot(clock.now()) });
  let checkpointing: Promise<void> = Promise.resolve();
  const checkpoint = setInterval(() => {
    if (!clock.started) return;
    // A failed checkpoint must not stop the run; the final file says it happened.
    checkpointing = checkpointing
      .then(() => writeResultFile(path, build('running')))
      .catch((err: unknown) => void (checkpointProblem ??= `a checkpoint of the result file could not be written: ${describeError(err)}`));
  }, plan.checkpointEveryMs);
  checkpoint.unref();

  let status: RunStatus = 'failed';
  let failure: string | undefined;
  view.start();
  try {
    status = (await runLoad({ plan, baseUrl: target.url, recorder, clock, signal: options.signal })).status;
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
  }
  const serverStats = target.stats === null ? null : await target.stats().catch(() => null);
  await target.close();

  const draft = build(status, failure);
  const thresholds = plan.thresholds.map((threshold) => threshold.evaluate(draft));
  const result: RunResult = { ...draft, thresholds };
  await writeResultFile(path, result);
  const exitCode = status === 'aborted' ? ExitCode.interrupted : status === 'failed' || thresholds.some((t) => !t.ok) ? ExitCode.failed : ExitCode.ok;
  return { result, path, exitCode, serverStats };
}

