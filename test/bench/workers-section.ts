/**
 * How `rpcload run --workers N` scales in the closed model, against a target with a worker per
 * core (its own multi-worker nginx, started by run.ts) so that the target is not what limits it.
 */
import type { BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { medianFigures, runRpcloadClosed, type ClosedFigures } from './closed-section.ts';
import { median, round } from './bench-stats.ts';

export interface WorkersRow {
  readonly workers: number;
  readonly rounds: readonly ClosedFigures[];
  readonly median: ClosedFigures;
  /** Median requests/s ÷ the median of the first worker count listed (usually 1). */
  readonly speedup: number;
}

export interface WorkersSection {
  /** What the runs were measured against, e.g. "nginx/1.22.1, 2 workers". */
  readonly target: string;
  readonly rows: readonly WorkersRow[];
}

/**
 * `rpcload run --workers N` (same connections and virtual users in total, split across the
 * workers), each worker count in turn per round.
 */
export async function runWorkersSection(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<WorkersSection> {
  const byCount = new Map<number, ClosedFigures[]>(config.workerCounts.map((w) => [w, []]));
  for (let r = 1; r <= config.workerRounds; r++) {
    for (const workers of config.workerCounts) {
      const figures = await runRpcloadClosed(target, config, workDir, `workers-${workers}-r${r}`, workers);
      byCount.get(workers)!.push(figures);
      log(
        `workers ${workers}, round ${r}/${config.workerRounds}: ${figures.requestsPerS}/s, ${figures.cpuCores} cores busy (load average ${figures.loadAverage}, CPU pressure ${figures.cpuPressurePercent ?? '-'} %)`,
      );
    }
  }
  const base = median(byCount.get(config.workerCounts[0]!)!.map((f) => f.requestsPerS));
  const rows = config.workerCounts.map((workers) => {
    const rounds = byCount.get(workers)!;
    const m = medianFigures(rounds);
    return { workers, rounds, median: m, speedup: round(m.requestsPerS / base, 2) };
  });
  return { target: target.description, rows };
}
