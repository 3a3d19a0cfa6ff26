/**
 * Start-up: how long a user waits for rpcload's quick commands — `--version`, `--help`, `profile
 * validate` of a small profile — beside autocannon's `--version` and `node -e 0` (the floor of any
 * Node CLI), and how long `rpcload run` (and autocannon) take from spawn to the first request at a
 * local target. Each command is a separate process spawned by the bench, `runs` times, the commands
 * in rotating order; medians of the wall time (spawn to exit, or to the first request) and of the
 * CPU time (the exited command's, from /proc/self/stat: 10 ms ticks).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { AUTOCANNON_CLI, autocannonArgv } from './autocannon-cli.ts';
import type { BenchConfig } from './bench-config.ts';
import { writeBenchProfile } from './bench-profile.ts';
import { loadAverage, median, round } from './bench-stats.ts';
import { BENCH_TOKEN, REQUEST_BODY, REQUEST_PATH, SUCCESS_BODY, TOKEN_BODY } from './bench-target.ts';
import { childrenCpuS, clockTicksPerS } from './child-cpu.ts';
import { rotation } from './closed-section.ts';
import { RPCLOAD_BIN } from '../support/cli.ts';

/** Issue 35's targets: the quick commands' median wall time, and `run`'s spawn to first request. */
export const START_UP_TARGET_MS = 250;
export const FIRST_REQUEST_TARGET_MS = 500;

/** What a start-up row times: the whole command, or its spawn to the target's first API request. */
export type StartUpMeasure = 'exit' | 'first request';

export interface StartUpRow {
  readonly name: string;
  readonly command: string;
  readonly measure: StartUpMeasure;
  /** Each run's wall time (ms), in run order. */
  readonly wallMs: readonly number[];
  readonly medianWallMs: number;
  /** Median CPU time (user + system, ms) of the command's whole process. */
  readonly medianCpuMs: number;
}

export interface StartUpSection {
  readonly runs: number;
  readonly loadAverage: number;
  readonly rows: readonly StartUpRow[];
}

/** The local target of the first-request rows: answers the token method and every API call. */
interface FirstRequestTarget {
  readonly url: string;
  /** The moment (performance.now()) the next API call (not a token request) arrives. */
  nextApiCall(): Promise<number>;
  close(): Promise<void>;
}

async function startFirstRequestTarget(): Promise<FirstRequestTarget> {
  let waiting: ((atMs: number) => void) | null = null;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const atMs = performance.now();
    const token = request.url?.endsWith('/auth.token') === true;
    if (!token && waiting !== null) {
      waiting(atMs);
      waiting = null;
    }
    request.resume().on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(token ? TOKEN_BODY : SUCCESS_BODY);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nextApiCall: () => new Promise((resolve) => (waiting = resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Command {
  readonly name: string;
  readonly argv: readonly string[];
  readonly measure: StartUpMeasure;
}

/** One run: wall time to exit (or to the first API call at `target`) and the process's CPU time. */
async function timeOnce(
  command: Command,
  target: FirstRequestTarget,
  ticksPerS: number,
): Promise<{ wallMs: number; cpuMs: number }> {
  const [file, ...args] = command.argv;
  let firstCallMs: number | null = null;
  if (command.measure === 'first request') void target.nextApiCall().then((atMs) => (firstCallMs = atMs));
  const cpuBefore = childrenCpuS(ticksPerS);
  const spawnedMs = performance.now();
  const child = spawn(file!, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, exitedMs] = await new Promise<[number | null, number]>((resolve, reject) => {
    child.once('error', reject);
    // 'exit' comes after the child has been waited for: its CPU is in cutime by now.
    child.once('exit', (exitCode) => resolve([exitCode, performance.now()]));
  }).finally(() => clearTimeout(deadline));
  const cpuMs = round((childrenCpuS(ticksPerS) - cpuBefore) * 1000, 0);
  if (code !== 0) throw new Error(`start-up: ${command.argv.join(' ')} exited with ${code}: ${stderr.trim()}`);
  if (command.measure === 'exit') return { wallMs: round(exitedMs - spawnedMs, 1), cpuMs };
  // The runs last a second or more: their first call arrived long before they exited.
  if (firstCallMs === null) throw new Error(`start-up: ${command.name} sent no API call`);
  return { wallMs: round(firstCallMs - spawnedMs, 1), cpuMs };
}

/** The commands timed, rpcload's as its users run it (the built CLI) and autocannon's as its CLI. */
function commands(config: BenchConfig, workDir: string, targetUrl: string): Command[] {
  const node = process.execPath;
  const rpcload = [node, RPCLOAD_BIN];
  const client = config.rpcloadClient;
  const small = writeBenchProfile(workDir, 'start-up-validate', targetUrl, {
    load: { concurrency: 8 },
    durationS: 10,
    clients: 4,
    connections: 8,
    client,
  });
  const runProfile = (name: string, users: number): string =>
    writeBenchProfile(workDir, name, targetUrl, {
      load: { concurrency: users },
      durationS: 1,
      clients: 1,
      connections: users,
      client,
    });
  const run = (name: string, users: number): string[] => [
    ...rpcload,
    'run',
    runProfile(name, users),
    '--ui',
    'none',
    '--out',
    `${workDir}/${name}.result.json`,
  ];
  const autocannonRun = autocannonArgv({
    url: `${targetUrl}${REQUEST_PATH}`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` },
    body: REQUEST_BODY,
    connections: 1,
    durationS: 1,
  });
  return [
    { name: 'rpcload --version', argv: [...rpcload, '--version'], measure: 'exit' },
    { name: 'rpcload --help', argv: [...rpcload, '--help'], measure: 'exit' },
    { name: 'rpcload profile validate', argv: [...rpcload, 'profile', 'validate', small], measure: 'exit' },
    { name: 'autocannon --version', argv: [node, AUTOCANNON_CLI, '--version'], measure: 'exit' },
    { name: 'node -e 0', argv: [node, '-e', '0'], measure: 'exit' },
    { name: 'rpcload run, 1 virtual user', argv: run('start-up-run-1', 1), measure: 'first request' },
    // From 8 virtual users a run warms its code path for 400 ms before the clock starts (src/driver/warm-up.ts).
    { name: 'rpcload run, 64 virtual users', argv: run('start-up-run-64', 64), measure: 'first request' },
    { name: 'autocannon -c 1', argv: autocannonRun, measure: 'first request' },
  ];
}

/** Every command `config.startUpRuns` times, in rotating order; medians per command. */
export async function runStartUpSection(
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<StartUpSection> {
  const loadAvg = await loadAverage();
  const ticksPerS = clockTicksPerS();
  const target = await startFirstRequestTarget();
  try {
    const list = commands(config, workDir, target.url);
    const runs = new Map<string, { wallMs: number; cpuMs: number }[]>(list.map((c) => [c.name, []]));
    for (let r = 0; r < config.startUpRuns; r++) {
      for (const command of rotation(list, r)) runs.get(command.name)!.push(await timeOnce(command, target, ticksPerS));
    }
    const rows = list.map((command): StartUpRow => {
      const own = runs.get(command.name)!;
      const row = {
        name: command.name,
        command: command.argv.slice(1).join(' '),
        measure: command.measure,
        wallMs: own.map((run) => run.wallMs),
        medianWallMs: round(median(own.map((run) => run.wallMs)), 1),
        medianCpuMs: round(median(own.map((run) => run.cpuMs)), 0),
      };
      log(
        `start-up, ${row.name}: ${row.medianWallMs} ms to ${row.measure} (median of ${own.length}), ${row.medianCpuMs} ms CPU`,
      );
      return row;
    });
    return { runs: config.startUpRuns, loadAverage: loadAvg, rows };
  } finally {
    await target.close();
  }
}

/** The quick commands judged against the targets: rpcload's `exit` rows. */
export const QUICK_COMMANDS = ['rpcload --version', 'rpcload --help', 'rpcload profile validate'] as const;
export const AUTOCANNON_VERSION = 'autocannon --version';
export const FIRST_REQUEST_ROW = 'rpcload run, 1 virtual user';
