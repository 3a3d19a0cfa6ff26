import { join } from 'node:path';
import type { BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { writeBenchProfile } from './bench-profile.ts';
import { countAboveUs, cpuPressurePercent, loadAverage, readRunResult, round } from './bench-stats.ts';
import { runTool } from './run-tool.ts';

export interface OpenRow {
  readonly targetPerS: number;
  readonly durationS: number;
  /** Responses completed within the phase (t < duration) ÷ duration. */
  readonly achievedPerS: number;
  readonly achievedRatio: number;
  readonly requests: number;
  readonly skipped: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** Requests whose schedule lag (send − intended start) exceeded 1 ms: what the CO-correct latency added. */
  readonly lagOver1Ms: number;
  readonly latencyP99Ms: number;
  readonly serviceP99Ms: number;
  /** latency p99 − service-time p99 (ms). */
  readonly coP99AddedMs: number;
  readonly cpuCores: number;
  readonly loadAverage: number;
  /** CPU pressure (PSI some avg10, %) right after the run. */
  readonly cpuPressurePercent: number | null;
}

const OPEN_CLIENTS = 8;

/** rpcload at fixed arrival rates: how close to the schedule it sends, and what lag costs latency. */
export async function runOpenSection(target: BenchTarget, config: BenchConfig, workDir: string, log: (line: string) => void): Promise<OpenRow[]> {
  const rows: OpenRow[] = [];
  for (const rate of config.openRatesPerS) {
    const name = `open-${rate}`;
    const loadAvg = await loadAverage();
    const durationS = config.openDurationS;
    const profilePath = writeBenchProfile(workDir, name, target.url, { load: { rate }, durationS, clients: OPEN_CLIENTS, connections: config.openConnections });
    const resultPath = join(workDir, `${name}.result.json`);
    const { run } = await runTool({ tool: 'rpcload', profilePath, resultPath, args: [] }, workDir, name);
    const result = readRunResult(resultPath);
    const s = result.summary;
    const inPhase = result.timeline.filter((row) => row.t < durationS).reduce((sum, row) => sum + row.requests, 0);
    const lag = s.scheduleLagMs;
    const row: OpenRow = {
      targetPerS: rate,
      durationS,
      achievedPerS: round(inPhase / durationS, 1),
      achievedRatio: round(inPhase / (rate * durationS), 4),
      requests: s.requests,
      skipped: Object.values(s.skipped).reduce((a, b) => a + b, 0),
      lagP50Ms: lag?.p50 ?? 0,
      lagP99Ms: lag?.p99 ?? 0,
      lagMaxMs: lag?.max ?? 0,
      lagOver1Ms: result.histograms.scheduleLag === undefined ? 0 : countAboveUs(result.histograms.scheduleLag, 1000),
      latencyP99Ms: s.latencyMs.p99,
      serviceP99Ms: s.serviceTimeMs.p99,
      coP99AddedMs: round(s.latencyMs.p99 - s.serviceTimeMs.p99),
      cpuCores: round(run.cpuS / run.wallS, 2),
      loadAverage: loadAvg,
      cpuPressurePercent: cpuPressurePercent(),
    };
    rows.push(row);
    log(`open ${rate}/s: achieved ${row.achievedPerS}/s (${round(row.achievedRatio * 100, 2)} %), lag p50/p99/max ${row.lagP50Ms}/${row.lagP99Ms}/${row.lagMaxMs} ms, ${row.lagOver1Ms} requests lagged > 1 ms (load average ${loadAvg}, CPU pressure ${row.cpuPressurePercent} %)`);
  }
  return rows;
}
