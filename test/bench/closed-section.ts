/**
 * The closed-model comparison: rpcload, autocannon's CLI and wrk (when present), each run as its
 * users run it — a separate command measured from outside — with the same request, connections
 * and duration, in rotating order, round after round; medians of every figure and ratio. A bare
 * undici dispatch loop runs in the same rotation as a reference (the floor of a client on undici).
 */
import { join } from 'node:path';
import { autocannonArgv, parseAutocannonJson } from './autocannon-cli.ts';
import { bareUndiciArgv, parseBareUndiciJson } from './bare-undici-cli.ts';
import { BENCH_TOKEN, REQUEST_BODY, REQUEST_PATH, type BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { writeBenchProfile } from './bench-profile.ts';
import { cpuPressurePercent, loadAverage, median, readRunResult, round } from './bench-stats.ts';
import { rpcloadArgv } from './rpcload-cli.ts';
import { deadlineFor, runTool } from './run-tool.ts';
import type { ToolCount, ToolRun } from './tool-spec.ts';
import { parseWrkOutput, wrkArgv, writeWrkScript } from './wrk-cli.ts';

/** One tool's closed-model figures in one run. */
export interface ClosedFigures {
  readonly requestsPerS: number;
  readonly requests: number;
  readonly cpuSPer1000: number;
  /** CPU use of the tool's process as a share of one core, spawn to exit. */
  readonly cpuCores: number;
  /** Spawn to exit (s): the configured duration plus the tool's start-up, drain and write-out. */
  readonly wallS: number;
  readonly peakRssMb: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
  /** 1-minute load average right before the run. */
  readonly loadAverage: number;
  /** CPU pressure (PSI some avg10, %) right after the run: how much runnable work waited for a CPU. */
  readonly cpuPressurePercent: number | null;
}

export type ClosedTool = 'rpcload' | 'autocannon' | 'wrk' | 'bare-undici';

/** Ratios of one round (or medians of the rounds' ratios): requests/s, and CPU-s per 1,000 requests; null without wrk. */
export interface ClosedRatios {
  readonly rpcloadVsAutocannon: number;
  readonly rpcloadVsWrk: number | null;
  readonly autocannonVsWrk: number | null;
  /** rpcload's CPU-s per 1,000 requests ÷ autocannon's (below 1: rpcload spends less per request). */
  readonly cpuRpcloadVsAutocannon: number;
  /** The bare undici loop's CPU-s per 1,000 requests ÷ autocannon's. */
  readonly cpuBareUndiciVsAutocannon: number;
}

export interface ClosedRound {
  readonly round: number;
  /** The order the tools ran in this round (each goes first in turn). */
  readonly order: readonly ClosedTool[];
  readonly rpcload: ClosedFigures;
  readonly autocannon: ClosedFigures;
  readonly wrk: ClosedFigures | null;
  /** The reference: a bare undici dispatch loop, no rpcload code (its p50/p99 are not measured: 0). */
  readonly bareUndici: ClosedFigures;
  readonly ratios: ClosedRatios;
}

export interface ClosedSection {
  readonly connections: number;
  readonly durationS: number;
  readonly rounds: readonly ClosedRound[];
  readonly median: {
    readonly rpcload: ClosedFigures;
    readonly autocannon: ClosedFigures;
    readonly wrk: ClosedFigures | null;
    readonly bareUndici: ClosedFigures;
    /** Medians of the rounds' ratios (not ratios of the medians). */
    readonly ratios: ClosedRatios;
  };
}

const HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` };
const MEASURED_PHASE = 'load';

/** Median of each figure across runs (figure by figure, so not one run's row). */
export function medianFigures(list: readonly ClosedFigures[]): ClosedFigures {
  const m = (pick: (f: ClosedFigures) => number): number => round(median(list.map(pick)));
  return {
    requestsPerS: m((f) => f.requestsPerS),
    requests: m((f) => f.requests),
    cpuSPer1000: m((f) => f.cpuSPer1000),
    cpuCores: m((f) => f.cpuCores),
    wallS: m((f) => f.wallS),
    peakRssMb: m((f) => f.peakRssMb),
    p50Ms: m((f) => f.p50Ms),
    p99Ms: m((f) => f.p99Ms),
    failures: m((f) => f.failures),
    loadAverage: m((f) => f.loadAverage),
    cpuPressurePercent: list.some((f) => f.cpuPressurePercent === null) ? null : m((f) => f.cpuPressurePercent!),
  };
}

/** One tool's figures from the wrapper's measurements and what the tool counted itself. */
function closedFigures(run: ToolRun, loadAvg: number, counted: ToolCount): ClosedFigures {
  return {
    requestsPerS: round(counted.requestsPerS, 0),
    requests: counted.requests,
    cpuSPer1000: round((run.cpuS / counted.requests) * 1000, 4),
    cpuCores: round(run.cpuS / run.wallS, 2),
    wallS: round(run.wallS, 2),
    peakRssMb: round(run.peakRssMb, 1),
    p50Ms: round(counted.p50Ms),
    p99Ms: round(counted.p99Ms),
    failures: counted.failures,
    loadAverage: loadAvg,
    cpuPressurePercent: cpuPressurePercent(),
  };
}

/**
 * `rpcload run` in the closed model — `connections` virtual users on as many connections, split
 * across `workers` threads — from the built CLI (`node bin/rpcload.js`, as a user runs it).
 * Requests/s is the measured phase's requests ÷ its duration, from the result file.
 */
export async function runRpcloadClosed(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  name: string,
  workers = 1,
): Promise<ClosedFigures> {
  const loadAvg = await loadAverage();
  const profilePath = writeBenchProfile(workDir, name, target.url, {
    load: { concurrency: config.connections },
    durationS: config.closedDurationS,
    clients: workers,
    connections: config.connections,
    client: config.rpcloadClient,
  });
  const resultPath = join(workDir, `${name}.result.json`);
  const argv = rpcloadArgv(profilePath, resultPath, workers);
  const { run } = await runTool({ argv, deadlineS: deadlineFor(config.closedDurationS) }, workDir, name);
  const phase = readRunResult(resultPath).byPhase[MEASURED_PHASE];
  if (phase === undefined) throw new Error(`${resultPath}: no phase ${MEASURED_PHASE}`);
  return closedFigures(run, loadAvg, {
    requests: phase.requests,
    durationS: config.closedDurationS,
    requestsPerS: phase.requests / config.closedDurationS,
    p50Ms: phase.latencyMs.p50,
    p99Ms: phase.latencyMs.p99,
    failures: phase.requests - (phase.outcomes.success ?? 0),
  });
}

/**
 * autocannon's CLI (`-w N` with N > 1: its worker threads share the connections, as rpcload's
 * --workers do); requests/s is its total ÷ the duration it measured.
 */
export async function runAutocannon(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  name: string,
  workers = 1,
): Promise<ClosedFigures> {
  const loadAvg = await loadAverage();
  const argv = autocannonArgv({
    url: `${target.url}${REQUEST_PATH}`,
    headers: HEADERS,
    body: REQUEST_BODY,
    connections: config.connections,
    durationS: config.closedDurationS,
    workers,
  });
  const { run, stdout } = await runTool({ argv, deadlineS: deadlineFor(config.closedDurationS) }, workDir, name);
  return closedFigures(run, loadAvg, parseAutocannonJson(stdout));
}

/** The bare undici dispatch loop (the reference row); requests/s is its count ÷ the time it ran. */
async function runBareUndici(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  name: string,
): Promise<ClosedFigures> {
  const loadAvg = await loadAverage();
  const argv = bareUndiciArgv({
    url: `${target.url}${REQUEST_PATH}`,
    headers: HEADERS,
    body: REQUEST_BODY,
    connections: config.connections,
    durationS: config.closedDurationS,
  });
  const { run, stdout } = await runTool({ argv, deadlineS: deadlineFor(config.closedDurationS) }, workDir, name);
  return closedFigures(run, loadAvg, parseBareUndiciJson(stdout));
}

/** wrk, one thread; requests/s is its own Requests/sec (requests ÷ the duration it measured). */
async function runWrk(
  binary: string,
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  name: string,
): Promise<ClosedFigures> {
  const loadAvg = await loadAverage();
  const script = writeWrkScript(workDir, HEADERS, REQUEST_BODY);
  const argv = wrkArgv(binary, {
    url: `${target.url}${REQUEST_PATH}`,
    script,
    connections: config.connections,
    durationS: config.closedDurationS,
  });
  const { run, stdout } = await runTool({ argv, deadlineS: deadlineFor(config.closedDurationS) }, workDir, name);
  return closedFigures(run, loadAvg, parseWrkOutput(stdout));
}

/** The round's order: the tool list rotated so that each tool goes first in turn. */
export function rotation<T>(tools: readonly T[], roundIndex: number): T[] {
  const shift = roundIndex % tools.length;
  return [...tools.slice(shift), ...tools.slice(0, shift)];
}

const ratio = (a: number, b: number): number => round(a / b);

/**
 * The closed section: `config.rounds` rounds of rpcload, autocannon's CLI and wrk (`wrk` is its
 * path, or null to run without it), in rotating order so that no tool always gets the fresher
 * machine.
 */
export async function runClosedSection(
  target: BenchTarget,
  config: BenchConfig,
  wrk: string | null,
  workDir: string,
  log: (line: string) => void,
): Promise<ClosedSection> {
  const tools: ClosedTool[] =
    wrk === null ? ['rpcload', 'autocannon', 'bare-undici'] : ['rpcload', 'autocannon', 'wrk', 'bare-undici'];
  const rounds: ClosedRound[] = [];
  for (let r = 1; r <= config.rounds; r++) {
    const order = rotation(tools, r - 1);
    const figures = new Map<ClosedTool, ClosedFigures>();
    for (const tool of order) {
      const name = `closed-${config.closedDurationS}s-r${r}-${tool}`;
      const f =
        tool === 'rpcload'
          ? await runRpcloadClosed(target, config, workDir, name)
          : tool === 'autocannon'
            ? await runAutocannon(target, config, workDir, name)
            : tool === 'wrk'
              ? await runWrk(wrk!, target, config, workDir, name)
              : await runBareUndici(target, config, workDir, name);
      figures.set(tool, f);
      log(
        `closed ${config.closedDurationS} s round ${r}/${config.rounds}, ${tool}: ${f.requestsPerS}/s, ${f.cpuSPer1000} CPU-s/1000, ${f.cpuCores} cores busy, p50/p99 ${f.p50Ms}/${f.p99Ms} ms (load average ${f.loadAverage}, CPU pressure ${f.cpuPressurePercent ?? '-'} %)`,
      );
    }
    const rpc = figures.get('rpcload')!;
    const ac = figures.get('autocannon')!;
    const w = figures.get('wrk') ?? null;
    const bare = figures.get('bare-undici')!;
    const ratios: ClosedRatios = {
      rpcloadVsAutocannon: ratio(rpc.requestsPerS, ac.requestsPerS),
      rpcloadVsWrk: w === null ? null : ratio(rpc.requestsPerS, w.requestsPerS),
      autocannonVsWrk: w === null ? null : ratio(ac.requestsPerS, w.requestsPerS),
      cpuRpcloadVsAutocannon: ratio(rpc.cpuSPer1000, ac.cpuSPer1000),
      cpuBareUndiciVsAutocannon: ratio(bare.cpuSPer1000, ac.cpuSPer1000),
    };
    rounds.push({ round: r, order, rpcload: rpc, autocannon: ac, wrk: w, bareUndici: bare, ratios });
    log(
      `closed ${config.closedDurationS} s round ${r}/${config.rounds}: requests/s rpcload ÷ autocannon ${ratios.rpcloadVsAutocannon}, rpcload ÷ wrk ${ratios.rpcloadVsWrk ?? '-'}, autocannon ÷ wrk ${ratios.autocannonVsWrk ?? '-'}; CPU per request rpcload ÷ autocannon ${ratios.cpuRpcloadVsAutocannon}, bare undici ÷ autocannon ${ratios.cpuBareUndiciVsAutocannon}`,
    );
  }
  const medianRatio = (pick: (r: ClosedRatios) => number | null): number | null =>
    rounds.some((r) => pick(r.ratios) === null) ? null : round(median(rounds.map((r) => pick(r.ratios)!)));
  return {
    connections: config.connections,
    durationS: config.closedDurationS,
    rounds,
    median: {
      rpcload: medianFigures(rounds.map((r) => r.rpcload)),
      autocannon: medianFigures(rounds.map((r) => r.autocannon)),
      wrk: wrk === null ? null : medianFigures(rounds.map((r) => r.wrk!)),
      bareUndici: medianFigures(rounds.map((r) => r.bareUndici)),
      ratios: {
        rpcloadVsAutocannon: medianRatio((r) => r.rpcloadVsAutocannon)!,
        rpcloadVsWrk: medianRatio((r) => r.rpcloadVsWrk),
        autocannonVsWrk: medianRatio((r) => r.autocannonVsWrk),
        cpuRpcloadVsAutocannon: medianRatio((r) => r.cpuRpcloadVsAutocannon)!,
        cpuBareUndiciVsAutocannon: medianRatio((r) => r.cpuBareUndiciVsAutocannon)!,
      },
    },
  };
}
