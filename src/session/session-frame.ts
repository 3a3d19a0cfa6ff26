/**
 * What every session that writes a result file does around its own work — a run's load, a
 * capacity search's steps, verify's checks, whatever comes next — in one place, so that they
 * cannot drift apart: check the result path (and any other output) before anything starts, read
 * every data set once, warn about what the result will record (`--insecure`), open the metrics
 * endpoint before the target, open and close the target, say who ran what (the run info),
 * write checkpoints that never end the session, and write the final file with its fallback. The
 * frame knows nothing of what the session sends.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunInfo, RunResult } from '../contract/result-schema.ts';
import { describeError, ExitCode } from '../errors.ts';
import { scanDataSet } from '../driver/data-rows.ts';
import { registerPlanSecrets } from '../profile/plan-secrets.ts';
import type { Plan } from '../profile/plan.ts';
import { whileServing, type MetricsEndpoint } from '../prometheus/metrics-endpoint.ts';
import {
  assertResultPathWritable,
  defaultResultPath,
  STDOUT_PATH,
  writeFinalResultFile,
  writeResultFile,
} from '../result-file/write-result.ts';
import { assertSafeOutput } from '../util/output-files.ts';
import { startCheckpoints, type Checkpoints } from './result/checkpoint-writer.ts';
import type { BuildResultInput } from './result/build-result.ts';
import type { Target } from './target.ts';

/** Another file the session writes (e.g. `--out-samples`), checked with the result path. */
export interface OtherOutput {
  readonly path: string;
  readonly flag: string;
  readonly what: string;
}

export interface FrameOptions {
  readonly kind: RunInfo['kind'];
  /** The profile's name, as `run.profile` records it. */
  readonly profile: string;
  /** `--out`; default results/<UTC timestamp>-<fileName>.json. */
  readonly outPath?: string;
  /** The default result file's name (default: the profile's). */
  readonly fileName?: string;
  /** `--label TEXT`, stored as `run.label`. */
  readonly label?: string;
  /** The plan whose data sets are read and whose secrets are registered before anything is sent; null when none. */
  readonly plan: Plan | null;
  readonly otherOutputs?: readonly OtherOutput[];
  /** What the result will record as warnings, said as the session starts (e.g. `--insecure`). */
  readonly warnings?: readonly string[];
  readonly warn?: (warning: string) => void;
  /** The session's stop (Ctrl-C): reading a large data set ends at once when it aborts. */
  readonly signal?: AbortSignal;
}

/** The run info fields only the session knows. */
export type RunInfoParts = Pick<RunInfo, 'status' | 'model' | 'workers'> &
  Partial<Pick<RunInfo, 'failure' | 'httpClient' | 'shard' | 'endedAt'>> & {
    readonly target: Pick<Target, 'url' | 'embedded'>;
    /** When the session's clock started (epoch ms); the frame's start when it has not. */
    readonly startedAtEpochMs?: number;
  };

/** The final file: where it was written, why not at the path asked for, and the exit code that follows. */
export interface FinalWrite {
  readonly path: string;
  readonly writeProblem: string | null;
  readonly exitCode: ExitCode;
}

export class SessionFrame {
  /** The run's id, shared by its metrics labels and its result file. */
  readonly id = randomUUID();
  readonly startedAt = new Date();
  /** The result file's path (`-`: stdout, written once at the end). */
  readonly path: string;
  private checkpointFailure: string | null = null;
  private periodic: Checkpoints | null = null;

  private constructor(private readonly options: FrameOptions) {
    this.path = options.outPath ?? defaultResultPath(options.fileName ?? options.profile, this.startedAt);
  }

  /** Check the outputs, read the data sets and say the warnings: everything found out before the session starts. */
  static async prepare(options: FrameOptions): Promise<SessionFrame> {
    const frame = new SessionFrame(options);
    if (frame.path !== STDOUT_PATH) await assertResultPathWritable(frame.path);
    for (const output of options.otherOutputs ?? []) await assertSafeOutput(output.path, output.flag, output.what);
    // Every data file read once before any load: a ragged row or a missing column is a one-line error now, not mid-run.
    // A stop during the reading (a large file, a Ctrl-C) ends it at once; the session then ends as aborted before any load.
    for (const set of options.plan?.data ?? [])
      if (options.signal?.aborted !== true) await scanDataSet(set, options.signal);
    // Known to the redactor before any reply could echo them (tokens register as they are issued).
    if (options.plan !== null) registerPlanSecrets(options.plan);
    for (const warning of options.warnings ?? []) options.warn?.(warning);
    return frame;
  }

  /** The warnings said up front, for the result file. */
  get warnings(): readonly string[] {
    return this.options.warnings ?? [];
  }

  /**
   * Run `body` with the metrics endpoint (opened by the caller before the target, so a port in use
   * is a bad flag found first) serving, and `target` opened for it and closed after it, whatever
   * happens. `closed` resolves when the endpoint has closed after its linger.
   */
  async serve<T>(
    endpoint: MetricsEndpoint | null,
    openTarget: (() => Promise<Target>) | null,
    body: (target: Target | null) => Promise<T>,
  ): Promise<{ value: T; closed: Promise<void> }> {
    return whileServing(endpoint, async () => {
      const target = openTarget === null ? null : await openTarget();
      try {
        return await body(target);
      } finally {
        await target?.close();
      }
    });
  }

  /** The result file's `run` record: the frame's identity, with what only the session knows. */
  runInfo(parts: RunInfoParts): RunInfo {
    const { target, startedAtEpochMs, status } = parts;
    // In the order result files have always had.
    return {
      id: this.id,
      kind: this.options.kind,
      label: this.options.label,
      profile: this.options.profile,
      startedAt: new Date(startedAtEpochMs ?? this.startedAt.getTime()).toISOString(),
      endedAt: parts.endedAt !== undefined ? parts.endedAt : status === 'running' ? null : new Date().toISOString(),
      status,
      failure: parts.failure,
      target: target.url,
      embeddedTarget: target.embedded,
      model: parts.model,
      workers: parts.workers,
      ...(parts.httpClient === undefined ? {} : { httpClient: parts.httpClient }),
      shards: 1,
      ...(parts.shard === undefined ? {} : { shard: parts.shard }),
      node: process.version,
      host: hostname(),
    };
  }

  /**
   * Periodic checkpoints built off the event loop (see checkpoint-writer.ts), every `everyMs`
   * while `due()`; a result written to stdout is written once, at the end. A failed checkpoint
   * never ends the session: `checkpointProblem()` says why, for the final file's warnings.
   */
  startCheckpoints(o: {
    readonly everyMs: number;
    /** How long the load is planned to last (0 when unknown): see checkpoint-writer.ts. */
    readonly plannedMs: number;
    readonly due: () => boolean;
    readonly input: () => Promise<BuildResultInput>;
  }): Checkpoints {
    this.periodic = startCheckpoints({
      path: this.path,
      ...o,
      everyMs: this.path === STDOUT_PATH ? 2 ** 31 - 1 : o.everyMs,
    });
    return this.periodic;
  }

  /** Write one checkpoint now (a capacity search after each step); a failure is kept, never thrown. */
  async checkpoint(result: RunResult): Promise<void> {
    if (this.path === STDOUT_PATH) return;
    await writeResultFile(this.path, result).catch((err: unknown) => {
      this.checkpointFailure ??= `a checkpoint of the result file could not be written: ${describeError(err)}`;
    });
  }

  /** Why a checkpoint failed (the first), for the final file's warnings; null when none did. */
  checkpointProblem(): string | null {
    return this.checkpointFailure ?? this.periodic?.problem() ?? null;
  }

  /**
   * Write the final file, to a fallback in the temp directory when its path cannot be written (see
   * writeFinalResultFile). A file that is not where it was asked for fails a session that
   * otherwise passed: whatever reads that path next must not take a stale file for this result.
   */
  async writeFinal(result: RunResult, judged: ExitCode): Promise<FinalWrite> {
    const written = await writeFinalResultFile(this.path, result);
    const exitCode = written.problem !== null && judged === ExitCode.ok ? ExitCode.failed : judged;
    return { path: written.path, writeProblem: written.problem, exitCode };
  }
}
