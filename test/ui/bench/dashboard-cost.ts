/**
 * What the dashboard costs the driver: the same run with `--ui tui` and `--ui none`, alternated,
 * several times, each on a tmux pseudo-terminal of the same size (so both have a real terminal),
 * reading achieved throughput and schedule lag from the result files, and the process's CPU time
 * (user + system, via /usr/bin/time when present): lag and throughput swing with whatever else the
 * machine runs, CPU time for a fixed amount of work much less.
 *
 *   npx tsx test/ui/bench/dashboard-cost.ts [runs=5] [rate=2000] [duration=20s] [profile] [WxH=80x24]
 *
 * Not a test (vitest does not collect it): numbers depend on the machine and what else runs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '../../../src/contract/result-schema.ts';
import { RPCLOAD_BIN } from '../../support/cli.ts';
import { absenceReason, findOnPath } from '../../support/system-program.ts';
import { shellQuote, TmuxSession } from '../../support/tmux.ts';

const [runsArg = '5', rate = '2000', duration = '20s', profile = '', sizeArg = '80x24'] = process.argv.slice(2);
const [width, height] = sizeArg.split('x').map(Number) as [number, number];
const dir = mkdtempSync(join(tmpdir(), 'rpcload-ui-cost-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const ROOT = join(import.meta.dirname, '..', '..', '..');

interface Row {
  readonly ui: string;
  readonly rps: number;
  readonly requests: number;
  readonly lagP50: number;
  readonly lagP99: number;
  readonly lagMax: number;
  readonly cpuS: number;
}

const TIME = '/usr/bin/time';

async function once(ui: 'tui' | 'none', index: number): Promise<Row> {
  const out = join(dir, `${ui}-${index}.json`);
  const cpuFile = join(dir, `${ui}-${index}.cpu`);
  const timed = existsSync(TIME) ? `${TIME} -f '%U %S' -o ${shellQuote(cpuFile)} ` : '';
  const command = `${timed}node ${shellQuote(RPCLOAD_BIN)} run ${profile === '' ? '' : shellQuote(profile)} --rate ${rate} --duration ${duration} --ui ${ui} --out ${shellQuote(out)} > /dev/null`;
  const session = TmuxSession.start({ width, height, command, cwd: ROOT, env: { NO_COLOR: undefined, CI: undefined } });
  try {
    await session.exitCode(600_000);
  } finally {
    session.kill();
  }
  const { summary } = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
  const lag = summary.scheduleLagMs;
  const cpuS =
    timed === ''
      ? Number.NaN
      : readFileSync(cpuFile, 'utf8')
          .trim()
          .split(/\s+/)
          .slice(-2)
          .map(Number)
          .reduce((a, b) => a + b, 0);
  return {
    ui,
    rps: summary.rps,
    requests: summary.requests,
    lagP50: lag?.p50 ?? Number.NaN,
    lagP99: lag?.p99 ?? Number.NaN,
    lagMax: lag?.max ?? Number.NaN,
    cpuS,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

if (findOnPath('tmux') === null)
  throw new Error(`the dashboard bench drives tmux: ${absenceReason('tmux', { package: 'tmux' })}`);
console.log(
  `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}; ${profile || 'demo profile'} --rate ${rate} --duration ${duration}, ${width}×${height}`,
);
const rows: Row[] = [];
for (let i = 0; i < Number(runsArg); i++) {
  for (const ui of i % 2 === 0 ? (['none', 'tui'] as const) : (['tui', 'none'] as const)) {
    const row = await once(ui, i);
    rows.push(row);
    console.log(
      `${ui.padEnd(4)}  rps ${row.rps.toFixed(1).padStart(7)}  requests ${String(row.requests).padStart(7)}  lag p50 ${row.lagP50.toFixed(3)} ms  p99 ${row.lagP99.toFixed(3)} ms  max ${row.lagMax.toFixed(1)} ms  cpu ${row.cpuS.toFixed(2)} s`,
    );
  }
}
for (const ui of ['none', 'tui'] as const) {
  const mine = rows.filter((r) => r.ui === ui);
  console.log(
    `median ${ui.padEnd(4)}  rps ${median(mine.map((r) => r.rps)).toFixed(1)}  lag p50 ${median(mine.map((r) => r.lagP50)).toFixed(3)} ms  p99 ${median(mine.map((r) => r.lagP99)).toFixed(3)} ms  cpu ${median(mine.map((r) => r.cpuS)).toFixed(2)} s`,
  );
}
