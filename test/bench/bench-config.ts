/**
 * What `npm run bench` runs, resolved from the environment once. Defaults are the full
 * bench (about 11 minutes); BENCH_QUICK=1 shrinks every section to a smoke of a few seconds, and
 * each figure can be overridden on its own.
 */
import { availableParallelism } from 'node:os';
import type { HttpClientName } from '../../src/profile/plan.ts';
import { HTTP_CLIENTS, httpClientNamed } from '../../src/profile/http-clients.ts';

export interface BenchConfig {
  readonly quick: boolean;
  /** Sections to run, in this order. */
  readonly sections: readonly BenchSection[];
  /** Start-up: runs of each command timed (medians of them). */
  readonly startUpRuns: number;
  /** Closed model: rounds of rpcload, autocannon's CLI and wrk, each tool going first in turn. */
  readonly rounds: number;
  readonly connections: number;
  readonly closedDurationS: number;
  /**
   * The closed section's rounds again at this shorter duration, where a tool's start-up weighs
   * more (issue 35 judges CPU per request in 5-second runs); null = not run (BENCH_QUICK).
   */
  readonly closedShortDurationS: number | null;
  /** Worker counts compared in the scaling section (each against the same target). */
  readonly workerCounts: readonly number[];
  readonly workerRounds: number;
  /** Worker processes of the workers section's own nginx (default: one per core), so that it is not the limit. */
  readonly nginxWorkers: number;
  readonly openRatesPerS: readonly number[];
  /**
   * Connections of the open-model runs: enough that rate × round-trip time never exhausts them
   * (20k/s at a 5 ms round trip on a busy machine needs 100), else arrivals queue for a socket.
   */
  readonly openConnections: number;
  readonly openDurationS: number;
  /**
   * A warm-up phase at the same rate before each measured open-model phase, as wrk2 calibrates
   * for 10 s before it measures: the measured figures are the steady state, and the whole run's
   * lag (cold start included) is reported next to them.
   */
  readonly openWarmupS: number;
  /** The highest open-model rate is run again with this many `--workers` (1 = not again). */
  readonly openWorkers: number;
  readonly memoryDurationS: number;
  readonly memoryRatePerS: number;
  readonly memoryClients: number;
  /** Data section: size of the generated CSV run in sequential and unique order (MB). */
  readonly dataMb: number;
  /** Data section: rows of the file run in random order. */
  readonly dataRandomRows: number;
  readonly dataRatePerS: number;
  readonly dataDurationS: number;
  /** The replay section's recording, GB (BENCH_REPLAY_GB), and the seconds of it replayed (its last ones). */
  readonly replayGb: number;
  readonly replayWindowS: number;
  /** 'auto' = nginx when present or installable, else the raw-socket responder. */
  readonly target: 'auto' | 'nginx' | 'raw';
  /** rpcload's HTTP client in every section (BENCH_RPCLOAD_CLIENT=rpcload|undici, or fast); null = its default. */
  readonly rpcloadClient: HttpClientName | null;
  /** The open-model row judged by issue 24: this share of the closed section's median rpcload requests/s. */
  readonly openShareOfClosed: number;
}

export type BenchSection = 'startup' | 'closed' | 'workers' | 'open' | 'memory' | 'data' | 'replay';
const ALL_SECTIONS: readonly BenchSection[] = ['startup', 'closed', 'workers', 'open', 'memory', 'data', 'replay'];

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, found ${JSON.stringify(raw)}`);
  return value;
}

function listFrom(env: NodeJS.ProcessEnv, name: string, fallback: readonly number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return [...fallback];
  return raw.split(',').map((part) => numberFrom({ [name]: part.trim() }, name, 0));
}

export function benchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  const sections = (env.BENCH_SECTIONS ?? ALL_SECTIONS.join(',')).split(',').map((s) => s.trim());
  for (const section of sections)
    if (!ALL_SECTIONS.includes(section as BenchSection))
      throw new Error(`BENCH_SECTIONS: unknown section ${JSON.stringify(section)} (known: ${ALL_SECTIONS.join(', ')})`);
  const target = env.BENCH_TARGET ?? 'auto';
  if (target !== 'auto' && target !== 'nginx' && target !== 'raw')
    throw new Error(`BENCH_TARGET must be auto, nginx or raw, found ${JSON.stringify(target)}`);
  const named = env.BENCH_RPCLOAD_CLIENT ?? '';
  const client = named === '' ? null : httpClientNamed(named);
  if (client === undefined)
    throw new Error(`BENCH_RPCLOAD_CLIENT must be one of ${HTTP_CLIENTS.join(', ')}, found ${JSON.stringify(named)}`);
  const share = numberFrom(env, 'BENCH_OPEN_SHARE', 0.6);
  if (share >= 1) throw new Error(`BENCH_OPEN_SHARE must be below 1, found ${share}`);
  return {
    quick,
    sections: sections as BenchSection[],
    startUpRuns: numberFrom(env, 'BENCH_STARTUP_RUNS', quick ? 3 : 5),
    rounds: numberFrom(env, 'BENCH_ROUNDS', quick ? 2 : 5),
    connections: numberFrom(env, 'BENCH_CONNECTIONS', 64),
    closedDurationS: numberFrom(env, 'BENCH_CLOSED_S', quick ? 3 : 10),
    closedShortDurationS: quick && !env.BENCH_CLOSED_SHORT_S ? null : numberFrom(env, 'BENCH_CLOSED_SHORT_S', 5),
    workerCounts: listFrom(env, 'BENCH_WORKERS', [1, 2]),
    workerRounds: numberFrom(env, 'BENCH_WORKER_ROUNDS', quick ? 1 : 3),
    nginxWorkers: numberFrom(env, 'BENCH_NGINX_WORKERS', availableParallelism()),
    openRatesPerS: listFrom(env, 'BENCH_RATES', quick ? [2000, 10_000] : [2000, 10_000, 20_000]),
    openConnections: numberFrom(env, 'BENCH_OPEN_CONNECTIONS', 256),
    openDurationS: numberFrom(env, 'BENCH_OPEN_S', quick ? 3 : 20),
    openWarmupS: numberFrom(env, 'BENCH_OPEN_WARMUP_S', quick ? 1 : 5),
    openWorkers: numberFrom(env, 'BENCH_OPEN_WORKERS', 2),
    memoryDurationS: numberFrom(env, 'BENCH_MEMORY_S', quick ? 10 : 120),
    memoryRatePerS: numberFrom(env, 'BENCH_MEMORY_RATE', 10_000),
    memoryClients: numberFrom(env, 'BENCH_MEMORY_CLIENTS', 500),
    dataMb: numberFrom(env, 'BENCH_DATA_MB', quick ? 16 : 1024),
    dataRandomRows: numberFrom(env, 'BENCH_DATA_RANDOM_ROWS', quick ? 200_000 : 10_000_000),
    dataRatePerS: numberFrom(env, 'BENCH_DATA_RATE', 2000),
    dataDurationS: numberFrom(env, 'BENCH_DATA_S', quick ? 3 : 20),
    replayGb: numberFrom(env, 'BENCH_REPLAY_GB', quick ? 0.05 : 5),
    replayWindowS: numberFrom(env, 'BENCH_REPLAY_WINDOW_S', quick ? 5 : 30),
    target,
    rpcloadClient: client,
    openShareOfClosed: share,
  };
}
