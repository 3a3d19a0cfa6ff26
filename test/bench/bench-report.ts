import type { BenchConfig } from './bench-config.ts';
import type { ClosedFigures, ClosedSection } from './closed-section.ts';
import type { MemoryResult } from './memory-section.ts';
import type { OpenRow } from './open-section.ts';
import type { WorkersRow } from './workers-section.ts';

/** Everything one `npm run bench` measured: what results/bench-<timestamp>.json holds. */
export interface BenchReport {
  readonly schema: 'rpcload/bench@1';
  readonly startedAt: string;
  readonly endedAt: string;
  readonly machine: {
    readonly cores: number;
    readonly cpu: string;
    readonly node: string;
    readonly os: string;
    readonly loadAverageStart: number;
    readonly loadAverageEnd: number;
    readonly cpuPressureStartPercent: number | null;
    readonly cpuPressureEndPercent: number | null;
  };
  readonly target: { readonly kind: string; readonly description: string };
  readonly config: BenchConfig;
  readonly closed: ClosedSection | null;
  readonly workers: readonly WorkersRow[] | null;
  readonly open: readonly OpenRow[] | null;
  readonly memory: MemoryResult | null;
}

function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(cells[0]!),
    `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

const figureRow = (label: string, f: ClosedFigures): (string | number)[] => [
  label,
  f.requestsPerS,
  f.cpuSPer1000,
  f.cpuCores,
  f.peakRssMb,
  f.p50Ms,
  f.p99Ms,
  f.loadAverage,
  f.cpuPressurePercent ?? '-',
];
const FIGURE_HEADER = ['', 'req/s', 'CPU-s/1000 req', 'cores busy', 'peak RSS MB', 'p50 ms', 'p99 ms', 'load avg', 'CPU PSI %'];

/** The report as markdown tables (also what is printed to stdout). */
export function renderBenchReport(report: BenchReport): string {
  const out: string[] = [];
  const m = report.machine;
  const psi =
    m.cpuPressureStartPercent === null
      ? ''
      : `; CPU pressure (PSI some avg10) ${m.cpuPressureStartPercent} % at start, ${m.cpuPressureEndPercent} % at end`;
  out.push(
    `Machine: ${m.cores} cores (${m.cpu}), ${m.os}, node ${m.node}; load average ${m.loadAverageStart} at start, ${m.loadAverageEnd} at end${psi}.`,
  );
  out.push(`Target: ${report.target.description} on 127.0.0.1.`);
  if (report.closed !== null) {
    const c = report.closed;
    out.push('', `### Closed model: ${c.connections} connections, ${c.durationS} s per run, one thread each`, '');
    const rows = c.rounds.flatMap((r) => [
      figureRow(`round ${r.round} rpcload`, r.rpcload),
      figureRow(`round ${r.round} autocannon`, r.autocannon),
      [`round ${r.round} ratio`, r.ratio, '', '', '', '', '', '', ''],
    ]);
    rows.push(figureRow('**median rpcload**', c.median.rpcload), figureRow('**median autocannon**', c.median.autocannon), [
      '**median ratio**',
      c.median.ratio,
      '',
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
    out.push(table(FIGURE_HEADER, rows));
  }
  if (report.workers !== null) {
    out.push('', '### rpcload --workers (closed model, same connections in total)', '');
    out.push(
      table(
        [...FIGURE_HEADER, 'speed-up'],
        report.workers.map((w) => [
          ...figureRow(`${w.workers} worker${w.workers === 1 ? '' : 's'} (median of ${w.rounds.length})`, w.median),
          w.speedup,
        ]),
      ),
    );
  }
  if (report.open !== null) {
    const { openConnections, openDurationS, openWarmupS } = report.config;
    out.push(
      '',
      `### Open model (arrival rate), 8 clients, ${openConnections} connections: ${openDurationS} s measured after a ${openWarmupS} s warm-up at the same rate`,
      '',
    );
    const header = [
      'target/s',
      'workers',
      'achieved/s',
      'achieved %',
      'lag p50 ms',
      'lag p99 ms',
      'lag max ms',
      'lag > 1 ms',
      'whole-run lag p99 / max ms',
      'latency p99 ms',
      'service p99 ms',
      'skipped',
      'load avg',
      'CPU PSI %',
    ];
    out.push(
      table(
        header,
        report.open.map((o) => [
          o.targetPerS,
          o.workers,
          o.achievedPerS,
          (o.achievedRatio * 100).toFixed(2),
          o.lagP50Ms,
          o.lagP99Ms,
          o.lagMaxMs,
          o.lagOver1Ms,
          `${o.runLagP99Ms} / ${o.runLagMaxMs}`,
          o.latencyP99Ms,
          o.serviceP99Ms,
          o.skipped,
          o.loadAverage,
          o.cpuPressurePercent ?? '-',
        ]),
      ),
    );
  }
  if (report.memory !== null) {
    const mem = report.memory;
    out.push('', `### Memory: ${mem.clients} clients at ${mem.ratePerS}/s for ${mem.durationS} s (${mem.requests} requests)`, '');
    out.push(
      table(
        ['RSS end of 1st half MB', 'RSS end of 2nd half MB', 'growth %', 'peak RSS MB', 'load avg'],
        [[mem.firstHalfRssMb, mem.secondHalfRssMb, mem.growthPercent, mem.peakRssMb, mem.loadAverage]],
      ),
    );
  }
  return out.join('\n');
}
