/** Replays from the CLI against the logging API (logging-api.ts), for tests of recordings and captures. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
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
 * log is cleared first. With `connections`, the target and clients come from a profile holding that
 * many connections instead (one: the server sees the calls in the order they were sent). A run
 * that hangs is killed after `timeoutMs` (code null).
 */
export async function replayByCli(
  api: LoggingApi,
  dir: string,
  args: readonly string[],
  clients: readonly string[],
  options: { readonly timeoutMs?: number; readonly connections?: number } = {},
): Promise<ReplayRun> {
  api.arrivals.length = 0;
  const name = Math.random().toString(36).slice(2);
  const out = join(dir, `result-${name}.json`);
  let how = ['--target', api.url, ...clients.flatMap((id) => ['--client', `${id}:secret-${id}`])];
  if (options.connections !== undefined) {
    const profile = join(dir, `profile-${name}.json`);
    const list = clients.map((id) => ({ id, secret: `secret-${id}` }));
    writeFileSync(
      profile,
      JSON.stringify({ target: api.url, clients: { list }, http: { connections: options.connections } }),
    );
    how = [profile];
  }
  const cli = await runRpcload(['run', ...how, '--ui', 'none', '--out', out, ...args], {
    timeoutMs: options.timeoutMs ?? 30_000,
  });
  const result = existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as RunResult) : null;
  return { code: cli.code, stdout: cli.stdout, stderr: cli.stderr, result, arrivals: [...api.arrivals] };
}

/** The `seq` of each arrival's args, sorted. */
export function seqsOf(arrivals: readonly Arrival[]): number[] {
  return arrivals.map((a) => a.args.seq as number).sort((a, b) => a - b);
}

/**
 * A caller's calls reached the server in recorded order. (Over one connection the server sees the
 * send order; over many, two calls sent a moment apart may cross on the way, as a real client's
 * would, and a stalled test process reads its sockets in no particular order.)
 */
export function expectCallerOrder(arrivals: readonly Arrival[], caller: string): void {
  const seqs = arrivals.filter((a) => a.client === caller).map((a) => a.args.seq as number);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}
