/**
 * A whole `rpcload run`, in named steps: open the target (starting the embedded reference server
 * when the plan has none), start the load, show it through a live view, checkpoint the result
 * file while it runs, and write the final file with its thresholds judged — also when the run is
 * aborted or fails.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LiveView, RunHeader, ViewSource } from '../contract/live-view.ts';
import type { RunInfo, RunResult, RunStatus } from '../contract/result-schema.ts';
import { describeError, ExitCode, RpcloadError } from '../errors.ts';
import type { RecordedData } from '../metrics/recorded-data.ts';
import { describePlan } from '../profile/describe-plan.ts';
import type { Plan } from '../profile/plan.ts';
import { evaluateThreshold } from '../profile/thresholds.ts';
import type { ServerStats } from '../server/options.ts';
import { describeLoad, runModel } from './load-description.ts';
import { dimensionsOf, startLoad, type RunningLoad } from './load.ts';
import { buildRunResult, type BuildResultInput } from './result/build-result.ts';
import { startCheckpoints } from './result/checkpoint-writer.ts';
import { defaultResultPath, writeResultFile } from './result/result-file.ts';
import { openTarget, type Target } from './target.ts';

export interface RunSessionOptions {
  readonly plan: Plan;
  /** Result file path; default results/<UTC timestamp>-<profile>.json. */
  readonly outPath?: string;
  readonly createView: (source: ViewSource) => LiveView;
  /** Abort = stop gracefully (Ctrl-C, SIGTERM, `q`). */
  readonly signal: AbortSignal;
  /** `--workers N`: worker threads carrying the load (at most one per client); default 1. */
  readonly workers?: number;
  /** `--label TEXT`: stored as `run.label` (e.g. the release under test). */
  readonly label?: string;
}

export interface RunSessionResult {
  readonly result: RunResult;
  readonly path: string;
  readonly exitCode: ExitCode;
  /** The embedded server's own counts, when the run used it. */
  readonly serverStats: ServerStats | null;
}

/** How the load ended, as the result file records it. */
interface Ending {
  readonly status: RunStatus;
  readonly failure?: string;
  readonly data: RecordedData;
  readonly notes: readonly string[];
}

export async function runSession(options: RunSessionOptions): Promise<RunSessionResult> {
  const { plan } = options;
  const startedAt = new Date();
  const path = options.outPath ?? defaultResultPath(plan.name, startedAt);
  const target = await openTarget(plan);
  try {
    const load = startLoad({ ...plan, target: target.url }, { workers: options.workers ?? 1, signal: options.signal });
    const record = new RunRecord(plan, target, load, startedAt, options.label);
    const view = options.createView({ header: runHeader(plan, target.url, path), snapshot: () => load.snapshot() });
    const checkpoints = startCheckpoints({
      path,
      everyMs: plan.checkpointEveryMs,
      due: () => load.clock.started,
      input: async () => record.input(await load.recorded(), 'running', [], checkpoints.problem()),
    });
    view.start();
    let ending: Ending;
    try {
      ending = await awaitEnding(load);
    } finally {
      view.stop();
      await checkpoints.stop();
    }
    const serverStats = target.stats === null ? null : await target.stats().catch(() => null);
    const result = judged(
      plan,
      buildRunResult(record.input(ending.data, ending.status, ending.notes, checkpoints.problem(), ending.failure)),
    );
    await writeResultFile(path, result);
    return { result, path, exitCode: exitCodeOf(result), serverStats };
  } finally {
    await target.close();
  }
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
  private readonly id = randomUUID();

  constructor(
    private readonly plan: Plan,
    private readonly target: Target,
    private readonly load: RunningLoad,
    private readonly startedAt: Date,
    private readonly label?: string,
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
      config: describePlan(this.plan),
      data,
      dims: dimensionsOf(this.plan),
      checks: [],
      thresholds: [],
      warnings: checkpointProblem === null ? [...notes] : [...notes, checkpointProblem],
    };
  }

  private info(status: RunStatus, failure: string | undefined): RunInfo {
    const { clock } = this.load;
    return {
      id: this.id,
      kind: 'run',
      ...(this.label === undefined ? {} : { label: this.label }),
      profile: this.plan.name,
      startedAt: new Date(clock.started ? clock.originEpochMs : this.startedAt.getTime()).toISOString(),
      endedAt: status === 'running' ? null : new Date().toISOString(),
      status,
      ...(failure === undefined ? {} : { failure }),
      target: this.target.url,
      embeddedTarget: this.target.embedded,
      model: runModel(this.plan.phases),
      workers: this.load.workers,
      shards: 1,
      node: process.version,
      host: hostname(),
    };
  }
}

/** The result with the plan's thresholds judged on its final figures. */
function judged(plan: Plan, draft: RunResult): RunResult {
  return { ...draft, thresholds: plan.thresholds.map((threshold) => evaluateThreshold(threshold, draft)) };
}

function exitCodeOf(result: RunResult): ExitCode {
  if (result.run.status === 'aborted') return ExitCode.interrupted;
  return result.run.status === 'failed' || result.thresholds.some((t) => !t.ok) ? ExitCode.failed : ExitCode.ok;
}
