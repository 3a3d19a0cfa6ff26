/**
 * The data section: memory of runs fed by big data files (issue 22). A CSV of BENCH_DATA_MB
 * (1 GB by default) is generated in the bench's temp directory and run in sequential and in unique
 * order; a file of BENCH_DATA_RANDOM_ROWS rows (10 million by default) in random order, whose
 * row index costs 8 bytes a row. Each run is `rpcload run` as users run it, its RSS sampled from
 * outside once a second; the target is that every peak stays under 300 MB. The time before the
 * load (the check of the whole file, and the index of a random one) is part of each run.
 */
import { createWriteStream, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchConfig } from './bench-config.ts';
import type { BenchTarget } from './bench-target.ts';
import { readRunResult, round } from './bench-stats.ts';
import { rpcloadArgv } from './rpcload-cli.ts';
import { deadlineFor, runTool } from './run-tool.ts';

/** The bound on the peak RSS of each of these runs. */
export const DATA_RSS_TARGET_MB = 300;

export interface DataRun {
  readonly order: 'sequential' | 'unique' | 'random';
  readonly fileMb: number;
  readonly rows: number;
  readonly requests: number;
  /** Wall time of the whole command (the file's check and index included), s. */
  readonly wallS: number;
  readonly peakRssMb: number;
}

/** Write `rows` CSV rows (~100 bytes each with `wide`, ~30 without) to `path`, streamed with back-pressure. */
async function writeCsv(path: string, rows: number, wide: boolean): Promise<void> {
  const out = createWriteStream(path);
  const pad = 'x'.repeat(40);
  out.write('id,email,name,note\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += wide
      ? `${i},user${i}@example.com,Name ${i},"note, with a comma ${i} ${pad}"\n`
      : `${i},u${i}@x.io,n${i},${i % 97}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  out.write(chunk);
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

async function runWithData(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  file: string,
  order: DataRun['order'],
  rows: number,
): Promise<DataRun> {
  const name = `data-${order}`;
  const profile = {
    name,
    target: target.url,
    clients: { pattern: 'bench-{n}', count: 10, secret: 'bench-secret' },
    data: { users: { file, order } },
    scenarios: [
      {
        name: 'ping',
        steps: [{ method: 'ping', args: { email: '{{data.users.email}}', note: '{{data.users.note}}' } }],
      },
    ],
    phases: [{ name: 'load', duration: `${config.dataDurationS}s`, rate: config.dataRatePerS }],
    http: { connections: 64 },
  };
  const profilePath = join(workDir, `${name}.profile.json`);
  writeFileSync(profilePath, JSON.stringify(profile, null, 2));
  const resultPath = join(workDir, `${name}.result.json`);
  // The file's check (and a random order's index) run before the load, at ~10 MB/s or ~100,000 rows/s
  // on a small machine: allow twice that, by size and by rows (10 million short rows take ~100 s).
  const fileMb = statSync(file).size / 2 ** 20;
  const checkS = fileMb / 5 + rows / 50_000;
  const startedMs = Date.now();
  const { run } = await runTool(
    {
      argv: rpcloadArgv(profilePath, resultPath),
      deadlineS: deadlineFor(config.dataDurationS + checkS),
      sampleRss: true,
    },
    workDir,
    name,
  );
  return {
    order,
    fileMb: round(fileMb, 1),
    rows,
    requests: readRunResult(resultPath).summary.requests,
    wallS: round((Date.now() - startedMs) / 1000, 1),
    peakRssMb: round(run.peakRssMb, 1),
  };
}

export async function runDataSection(
  target: BenchTarget,
  config: BenchConfig,
  workDir: string,
  log: (line: string) => void,
): Promise<DataRun[]> {
  const big = join(workDir, 'data-big.csv');
  const bigRows = Math.round((config.dataMb * 2 ** 20) / 100);
  log(`data: writing a CSV of ~${config.dataMb} MB (${bigRows} rows)`);
  await writeCsv(big, bigRows, true);
  const many = join(workDir, 'data-many.csv');
  log(`data: writing a CSV of ${config.dataRandomRows} short rows`);
  await writeCsv(many, config.dataRandomRows, false);
  const runs: DataRun[] = [];
  for (const [file, order, rows] of [
    [big, 'sequential', bigRows],
    [big, 'unique', bigRows],
    [many, 'random', config.dataRandomRows],
  ] as const) {
    const run = await runWithData(target, config, workDir, file, order, rows);
    log(
      `data: ${order} over ${run.rows} rows (${run.fileMb} MB): ${run.requests} requests, ${run.wallS} s, peak RSS ${run.peakRssMb} MB (target < ${DATA_RSS_TARGET_MB} MB)`,
    );
    runs.push(run);
  }
  return runs;
}
