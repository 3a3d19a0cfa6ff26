/** The memory section: RSS of one long open-model run with many clients, sampled from outside once a second. */
import { join } from 'node:path';
import type { BenchTarget } from './bench-target.ts';
import type { BenchConfig } from './bench-config.ts';
import { writeBenchProfile } from './bench-profile.ts';
import { loadAverage, median, readRunResult, round } from './bench-stats.ts';
import { rpcloadArgv } from './rpcload-cli.ts';
import { deadlineFor, runTool } from './run-tool.ts';
import type { RssSample } from './tool-spec.ts';

export interface MemoryResult {
  readonly ratePerS: number;
  readonly clients: number;
  readonly durationS: number;
  readonly requests: number;
  /** Median RSS over the last 10 s (or last fifth, for short runs) of each half of the run. */
  readonly firstHalfRssMb: number;
  readonly secondHalfRssMb: number;
  readonly growthPercent: number;
  readonly peakRssMb: number;
  readonly loadAverage: number;
  readonly samples: readonly RssSample[];
}

/**
 * A long open-model run with many clients, RSS read once a second: the recorder keeps
 * histograms and counters, never per-request data, so the second half must not grow.
 */
export async function runMemorySection(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<MemoryResult> {
  const durationS = config.memoryDurationS;
  const loadAvg = await loadAverage();
  const profilePath = writeBenchProfile(workDir, 'memory', target.url, {
    load: { rate: config.memoryRatePerS },
    durationS,
    clients: config.memoryClients,
    connections: config.openConnections,
    client: config.rpcloadClient,
  });
  const resultPath = join(workDir, 'memory.result.json');
  const { run } = await runTool(
    { argv: rpcloadArgv(profilePath, resultPath), deadlineS: deadlineFor(durationS), sampleRss: true },
    workDir,
    'memory',
  );
  const { rss } = run;
  const result = readRunResult(resultPath);
  // The load ends about when the last sample was taken (draining and writing take well under 1 s).
  const endS = rss.at(-1)?.atS ?? 0;
  const windowS = Math.min(10, durationS / 5);
  const medianIn = (fromS: number, toS: number): number =>
    median(rss.filter((s) => s.atS >= fromS && s.atS < toS).map((s) => s.rssMb));
  const halfEndS = endS - durationS / 2;
  const first = medianIn(halfEndS - windowS, halfEndS);
  const second = medianIn(endS - windowS, endS + 1);
  const memory: MemoryResult = {
    ratePerS: config.memoryRatePerS,
    clients: config.memoryClients,
    durationS,
    requests: result.summary.requests,
    firstHalfRssMb: round(first, 1),
    secondHalfRssMb: round(second, 1),
    growthPercent: round(((second - first) / first) * 100, 2),
    peakRssMb: round(run.peakRssMb, 1),
    loadAverage: loadAvg,
    samples: rss.map((s) => ({ atS: round(s.atS, 1), rssMb: round(s.rssMb, 1) })),
  };
  log(
    `memory: ${memory.clients} clients at ${memory.ratePerS}/s for ${durationS} s: RSS ${memory.firstHalfRssMb} → ${memory.secondHalfRssMb} MB (${memory.growthPercent} %), peak ${memory.peakRssMb} MB`,
  );
  return memory;
}
