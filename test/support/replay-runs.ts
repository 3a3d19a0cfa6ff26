/** Replays from the CLI against the logging API (logging-api.ts), for tests of recordings and captures. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from './cli.ts';
import type { Arrival, startLoggingApi } from './logging-api.ts';

type LoggingApi = Awaited<ReturnType<typeof startLoggingApi>>;

/** Write a JSONL recording (one call a line, after `prefix`) in `dir`; returns its path. */
export function writeRecording(dir: string, name: string, calls: readonly object[], prefix = ''): string {
  const path = join(dir, name);
  writeFileSync(path, prefix + calls.map((call) => JSON.stringify(call)).join('\n') + '\n');
  return path;
}

export interface ReplayRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The result file, when the run wrote one. */
  readonly result: RunResult | null;
  /** The calls the server saw during the run. */
  readonly arrivals: Arrival[];
}

/**
 * `rpcload run --target API --client ID:secret-ID … ARGS` (ARGS hold `--replay FILE`); the server's
 * log is cleared first. A run that hangs is killed after `timeoutMs` (code null).
 */
export async function replayByCli(
  api: LoggingApi,
  dir: string,
  args: readonly string[],
  clients: readonly string[],
  timeoutMs = 30_000,
): Promise<ReplayRun> {
  api.arrivals.length = 0;
  const out = join(dir, `result-${Math.random().toString(36).slice(2)}.json`);
  const credentials = clients.flatMap((id) => ['--client', `${id}:secret-${id}`]);
  const cli = await runRpcload(['run', '--target', api.url, ...credentials, '--ui', 'none', '--out', out, ...args], {
    timeoutMs,
  });
  const result = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as RunResult) : null;
  return { code: cli.code, stdout: cli.stdout, stderr: cli.stderr, result, arrivals: [...api.arrivals] };
}

/** The `seq` of each arrival's args, sorted. */
export function seqsOf(arrivals: readonly Arrival[]): number[] {
  return arrivals.map((a) => a.args.seq as number).sort((a, b) => a - b);
}
