/**
 * How `rpcload run --workers N` scales in the closed model, next to `autocannon -w N` with the same
 * connections in total, against a target with a worker per core (its own multi-worker nginx,
 * started by run.ts) so that the target is not what limits them. For each N: both tools' figures,
 * rpcload's speed-up over the first N, and rpcload's CPU per request ÷ autocannon's.
 */
import type { BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { medianFigures, rotation, runAutocannon, runRpcloadClosed, type ClosedFigures } from './closed-section.ts';
import { median, round } from './bench-stats.ts';

export interface WorkersRow {
  readonly workers: number;
  readonly rounds: readonly ClosedFigures[];
  readonly median: ClosedFigures;
  /** Median requests/s ÷ the median of the first worker count listed (usually 1). */
  readonly speedup: number;
  /** `autocannon -w N` (N = 1: autocannon without -w, its single-threaded mode, as rpcload without workers). */
  readonly autocannon: { readonly rounds: readonly ClosedFigures[]; readonly median: ClosedFigures };
  /** Median of the rounds' rpcload ÷ autocannon CPU-s per 1,000 requests (≤ 1: rpcload at least as efficient). */
  readonly cpuRatio: number;
}

export interface WorkersSection {
  /** What the runs were measured against, e.g. "nginx/1.22.1, 2 workers". */
  readonly target: string;
  readonly rows: readonly WorkersRow[];
}

/**
 * `rpcload run --workers N` and `autocannon -w N` (same connections and, for rpcload, virtual users
 * in total, split across the workers), each worker count in turn per round, the two tools in
 * alternating order.
 */
export async function runWorkersSection(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<WorkersSection> {
  const rpcload = new Map<number, ClosedFigures[]>(config.workerCounts.map((w) => [w, []]));
  const autocannon = new Map<number, ClosedFigures[]>(config.workerCounts.map((w) => [w, []]));
  const cpuRatios = new Map<number, number[]>(config.workerCounts.map((w) => [w, []]));
  for (let r = 1; r <= config.workerRounds; r++) {
    for (const workers of config.workerCounts) {
      const figures = new Map<string, ClosedFigures>();
      for (const tool of rotation(['rpcload', 'autocannon'], r - 1)) {
        const name = `workers-${workers}-r${r}-${tool}`;
        const f =
          tool === 'rpcload'
            ? await runRpcloadClosed(target, config, workDir, name, workers)
            : await runAutocannon(target, config, workDir, name, workers);
        figures.set(tool, f);
        log(
          `workers ${workers}, round ${r}/${config.workerRounds}, ${tool}: ${f.requestsPerS}/s, ${f.cpuSPer1000} CPU-s/1000, ${f.cpuCores} cores busy (load average ${f.loadAverage}, CPU pressure ${f.cpuPressurePercent ?? '-'} %)`,
        );
      }
      rpcload.get(workers)!.push(figures.get('rpcload')!);
      autocannon.get(workers)!.push(figures.get('autocannon')!);
      cpuRatios.get(workers)!.push(figures.get('rpcload')!.cpuSPer1000 / figures.get('autocannon')!.cpuSPer1000);
    }
  }
  const base = median(rpcload.get(config.workerCounts[0]!)!.map((f) => f.requestsPerS));
  const rows = config.workerCounts.map((workers) => {
    const rounds = rpcload.get(workers)!;
    const m = medianFigures(rounds);
    const theirs = autocannon.get(workers)!;
    return {
      workers,
      rounds,
      median: m,
      speedup: round(m.requestsPerS / base, 2),
      autocannon: { rounds: theirs, median: medianFigures(theirs) },
      cpuRatio: round(median(cpuRatios.get(workers)!)),
    };
  });
  return { target: target.description, rows };
}
