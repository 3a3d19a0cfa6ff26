/**
 * `rpcload merge` as a whole: find the shard files (given one by one, or every shard file in a
 * directory — what a Kubernetes results volume or a CI artifact download holds), optionally wait
 * until the run's set is complete, merge them, judge the thresholds on the union (the profile's,
 * when given, else those the shards recorded), write the merged file and say how it ended, with
 * the same exit codes as `run`.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { RunResult } from '../../contract/result-schema.ts';
import { ExitCode, RpcloadError } from '../../errors.ts';
import { readProfileDocument } from '../../profile/load-profile.ts';
import { evaluateThreshold } from '../../profile/threshold-results.ts';
import { parseThreshold } from '../../profile/thresholds.ts';
import { assertResultPathWritable, writeResultFile } from '../../result-file/write-result.ts';
import { assertDistinctFiles } from '../../util/output-files.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { readResultFile } from '../../result-file/read-result.ts';
import { thresholdEntry } from './merge-checks.ts';
import { mergeRuns } from './merge-runs.ts';

export interface MergeFilesOptions {
  /** Result files, or directories whose shard files are merged. */
  readonly paths: readonly string[];
  readonly out: string;
  readonly force?: boolean;
  readonly partial?: boolean;
  /** Only shard files of this run (needed when a directory holds several runs). */
  readonly runId?: string;
  /** Judge these thresholds (a profile file's) instead of those the shards recorded. */
  readonly profilePath?: string;
  /** Wait up to this long (ms) for a directory's shard set to be complete. */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
  /** Progress while waiting, one line each. */
  readonly log?: (line: string) => void;
}

export interface MergedFiles {
  readonly result: RunResult;
  readonly files: number;
  readonly exitCode: ExitCode;
}

const POLL_MS = 2000;

/** A directory's shard files (files that are not a shard's, such as an earlier merge, are skipped). */
async function shardFilesIn(dir: string, runId: string | undefined): Promise<LabelledResult[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
  const found: LabelledResult[] = [];
  for (const name of names) {
    const result = await readResultFile(join(dir, name));
    const shard = result.run.shard;
    if (shard === undefined || (runId !== undefined && shard.runId !== runId)) continue;
    found.push({ label: name, result });
  }
  const runs = [...new Set(found.map((input) => input.result.run.shard!.runId))];
  if (runs.length > 1) {
    throw new RpcloadError('incomparable', `${dir}: holds shards of ${runs.length} runs (${runs.join(', ')}); pick one with --run-id`);
  }
  return found;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Every input, files as given and directories expanded; labels are file names, or paths when two names clash. */
async function collect(paths: readonly string[], runId: string | undefined): Promise<LabelledResult[]> {
  const inputs: LabelledResult[] = [];
  for (const path of paths) {
    if (await isDirectory(path)) inputs.push(...(await shardFilesIn(path, runId)).map((input) => ({ ...input, label: join(path, input.label) })));
    else inputs.push({ label: path, result: await readResultFile(path) });
  }
  const names = inputs.map((input) => basename(input.label));
  return inputs.map((input, i) => (names.indexOf(names[i]!) === names.lastIndexOf(names[i]!) ? { ...input, label: names[i]! } : input));
}

/** True when the inputs are a complete set of one run's shards, each finished (a checkpoint says `running`). */
function complete(inputs: readonly LabelledResult[]): boolean {
  const shard = inputs[0]?.result.run.shard;
  if (shard === undefined || inputs.some((input) => input.result.run.status === 'running')) return false;
  return new Set(inputs.map((input) => input.result.run.shard?.index)).size === shard.count;
}

/** What the set still lacks, e.g. `2 of 4 shards present; missing 2, 4`: never the list of those present, however long. */
function missing(inputs: readonly LabelledResult[]): string {
  const count = inputs[0]?.result.run.shard?.count;
  if (count === undefined) return 'no shard file yet';
  const have = new Set(inputs.map((input) => input.result.run.shard?.index));
  const absent = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !have.has(index));
  const running = inputs.filter((input) => input.result.run.status === 'running').map((input) => input.result.run.shard?.index);
  return [
    `${count - absent.length} of ${count} shards present`,
    ...(absent.length > 0 ? [`missing ${absent.join(', ')}`] : []),
    ...(running.length > 0 ? [`still running ${running.join(', ')}`] : []),
  ].join('; ');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * The profile's thresholds, judged on the merged result. Only `thresholds` is read: the merge
 * runs where the profile's secrets may not be (a CI job, the merge pod).
 */
async function profileThresholds(profilePath: string, merged: RunResult): Promise<RunResult['thresholds']> {
  const { value } = await readProfileDocument(profilePath);
  const thresholds = (value as { thresholds?: unknown } | null)?.thresholds ?? [];
  if (!Array.isArray(thresholds)) throw new RpcloadError('bad_profile', `${profilePath}: /thresholds: expected an array of threshold expressions`);
  return thresholds.map((value: unknown, i) => {
    const entry = thresholdEntry(value);
    const pointer = `/thresholds/${i}${typeof value === 'string' ? '' : '/threshold'}`;
    if (typeof entry === 'string') throw new RpcloadError('bad_profile', `${profilePath}: /thresholds/${i}: ${entry}`);
    try {
      return evaluateThreshold(parseThreshold(entry.expr, { abortOnFail: entry.abortOnFail, delayAbortEvalMs: 0 }), merged);
    } catch (err) {
      throw new RpcloadError('bad_profile', `${profilePath}: ${pointer}: ${(err as Error).message}`);
    }
  });
}

export async function mergeFiles(options: MergeFilesOptions): Promise<MergedFiles> {
  // Before any wait: the merged file must not replace one of its inputs, and must be writable.
  await assertDistinctFiles(
    [{ name: '--out', path: options.out }],
    [...options.paths.map((path) => ({ name: 'the input', path })), { name: '--profile', path: options.profilePath }],
  );
  await assertResultPathWritable(options.out);
  const deadline = Date.now() + (options.waitMs ?? 0);
  let inputs = await collect(options.paths, options.runId);
  while (!complete(inputs) && Date.now() < deadline && options.signal?.aborted !== true) {
    const have = inputs.map((input) => input.result.run.shard?.index).filter((index) => index !== undefined);
    options.log?.(`waiting for shards: have ${have.length === 0 ? 'none' : have.sort((a, b) => a - b).join(', ')}${inputs[0]?.result.run.shard ? ` of ${inputs[0].result.run.shard.count}` : ''}`);
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), options.signal);
    inputs = await collect(options.paths, options.runId);
  }
  // Stopped while waiting: an interruption (exit 130), not a set found incomplete.
  if (options.signal?.aborted === true && options.waitMs !== undefined && !complete(inputs))
    throw new RpcloadError('interrupted', `merge: interrupted while waiting for shards (${missing(inputs)})`, ExitCode.interrupted);
  if (inputs.length === 0) throw new RpcloadError('bad_flag', `merge: no shard files found in ${options.paths.join(', ')}`);
  const draft = mergeRuns(inputs, { force: options.force ?? false, partial: options.partial ?? false });
  const result = options.profilePath === undefined ? draft : { ...draft, thresholds: await profileThresholds(options.profilePath, draft) };
  await writeResultFile(options.out, result);
  return { result, files: inputs.length, exitCode: exitCodeOf(result) };
}

/** As `run`: 1 when a threshold or check failed, a shard failed or was interrupted, or shards are missing. */
function exitCodeOf(result: RunResult): ExitCode {
  const incomplete = (result.run.shardSet?.missing.length ?? 0) > 0;
  const failed =
    result.run.status !== 'completed' ||
    incomplete ||
    result.thresholds.some((t) => !t.ok) ||
    result.checks.some((c) => c.verdict === 'fail');
  return failed ? ExitCode.failed : ExitCode.ok;
}
