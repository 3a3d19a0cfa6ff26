import { join } from 'node:path';
import { BENCH_TOKEN, REQUEST_BODY, REQUEST_PATH, type BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { writeBenchProfile } from './bench-profile.ts';
import { cpuPressurePercent, loadAverage, median, readRunResult, round } from './bench-stats.ts';
import { runTool } from './run-tool.ts';

/** One tool's closed-model figures in one round. */
export interface ClosedFigures {
  readonly requestsPerS: number;
  readonly requests: number;
  readonly cpuSPer1000: number;
  /** CPU use of the tool process as a share of one core over its run. */
  readonly cpuCores: number;
  readonly peakRssMb: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
  readonly loadAverage: number;
  /** CPU pressure (PSI some avg10, %) right after the run: how much runnable work waited for a CPU. */
  readonly cpuPressurePercent: number | null;
}

export interface ClosedRound {
  readonly round: number;
  readonly first: 'rpcload' | 'autocannon';
  readonly rpcload: ClosedFigures;
  readonly autocannon: ClosedFigures;
  /** rpcload requests/s ÷ autocannon requests/s. */
  readonly ratio: number;
}

export interface ClosedSection {
  readonly connections: number;
  readonly durationS: number;
  readonly rounds: readonly ClosedRound[];
  readonly median: { readonly rpcload: ClosedFigures; readonly autocannon: ClosedFigures; readonly ratio: number };
}

/** Median of each figure across rounds (figure by figure, so not one round's row). */
export function medianFigures(list: readonly ClosedFigures[]): ClosedFigures {
  const m = (pick: (f: ClosedFigures) => number): number => round(median(list.map(pick)));
  return {
    requestsPerS: m((f) => f.requestsPerS),
    requests: m((f) => f.requests),
    cpuSPer1000: m((f) => f.cpuSPer1000),
    cpuCores: m((f) => f.cpuCores),
    peakRssMb: m((f) => f.peakRssMb),
    p50Ms: m((f) => f.p50Ms),
    p99Ms: m((f) => f.p99Ms),
    failures: m((f) => f.failures),
    loadAverage: m((f) => f.loadAverage),
    cpuPressurePercent: list.some((f) => f.cpuPressurePercent === null) ? null : m((f) => f.cpuPressurePercent!),
  };
}

/** rpcload in the closed model: `connections` virtual users on as many connections. */
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
  });
  const resultPath = join(workDir, `${name}.result.json`);
  const args = workers > 1 ? ['--workers', String(workers)] : [];
  const { run } = await runTool({ tool: 'rpcload', profilePath, resultPath, args }, workDir, name);
  const result = readRunResult(resultPath);
  const s = result.summary;
  return closedFigures(run, config, loadAvg, {
    requests: s.requests,
    p50Ms: s.latencyMs.p50,
    p99Ms: s.latencyMs.p99,
    failures: s.requests - (s.outcomes.success ?? 0),
  });
}

async function runAutocannon(target: BenchTarget, config: BenchConfig, workDir: string, name: string): Promise<ClosedFigures> {
  const loadAvg = await loadAverage();
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` };
  const { run } = await runTool(
    {
      tool: 'autocannon',
      url: `${target.url}${REQUEST_PATH}`,
      headers,
      body: REQUEST_BODY,
      connections: config.connections,
      durationS: config.closedDurationS,
    },
    workDir,
    name,
  );
  if (run.tool.kind !== 'autocannon') throw new Error('unexpected tool report');
  const { requests, p50Ms, p99Ms, failures } = run.tool;
  return closedFigures(run, config, loadAvg, { requests, p50Ms, p99Ms, failures });
}

/** One tool's figures from its process measurements and what it counted itself. */
function closedFigures(
  run: { readonly cpuS: number; readonly wallS: number; readonly peakRssMb: number },
  config: BenchConfig,
  loadAvg: number,
  counted: { readonly requests: number; readonly p50Ms: number; readonly p99Ms: number; readonly failures: number },
): ClosedFigures {
  return {
    requestsPerS: round(counted.requests / config.closedDurationS, 0),
    requests: counted.requests,
    cpuSPer1000: round((run.cpuS / counted.requests) * 1000, 4),
    cpuCores: round(run.cpuS / run.wallS, 2),
    peakRssMb: round(run.peakRssMb, 1),
    p50Ms: counted.p50Ms,
    p99Ms: counted.p99Ms,
    failures: counted.failures,
    loadAverage: loadAvg,
    cpuPressurePercent: cpuPressurePercent(),
  };
}

/**
 * rpcload and autocannon in alternation (the first tool alternates too, so neither always gets
 * the fresher machine), the same request, connections and duration; each in its own process.
 * Requests/s is requests completed ÷ the configured duration for both tools.
 */
export async function runClosedSection(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<ClosedSection> {
  const rounds: ClosedRound[] = [];
  for (let r = 1; r <= config.rounds; r++) {
    const first = r % 2 === 1 ? 'rpcload' : 'autocannon';
    let rpc: ClosedFigures | undefined;
    let ac: ClosedFigures | undefined;
    for (const tool of first === 'rpcload' ? ['rpcload', 'autocannon'] : ['autocannon', 'rpcload']) {
      if (tool === 'rpcload') rpc = await runRpcloadClosed(target, config, workDir, `closed-r${r}-rpcload`);
      else ac = await runAutocannon(target, config, workDir, `closed-r${r}-autocannon`);
    }
    const ratio = round(rpc!.requestsPerS / ac!.requestsPerS);
    rounds.push({ round: r, first, rpcload: rpc!, autocannon: ac!, ratio });
    log(
      `closed round ${r}/${config.rounds}: rpcload ${rpc!.requestsPerS}/s (${rpc!.cpuSPer1000} CPU-s/1000), autocannon ${ac!.requestsPerS}/s (${ac!.cpuSPer1000} CPU-s/1000), ratio ${ratio} (load average ${rpc!.loadAverage}, CPU pressure ${rpc!.cpuPressurePercent} %)`,
    );
  }
  return {
    connections: config.connections,
    durationS: config.closedDurationS,
    rounds,
    median: {
      rpcload: medianFigures(rounds.map((r) => r.rpcload)),
      autocannon: medianFigures(rounds.map((r) => r.autocannon)),
      ratio: round(median(rounds.map((r) => r.ratio))),
    },
  };
}
