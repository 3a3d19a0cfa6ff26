/** The bench's report: what results/bench-<timestamp>.json holds, its verdict, and its markdown rendering. */
import type { BenchConfig } from './bench-config.ts';
import type { ClosedFigures, ClosedRatios, ClosedSection } from './closed-section.ts';
import { DATA_RSS_TARGET_MB, type DataRun } from './data-section.ts';
import type { MemoryResult } from './memory-section.ts';
import { REPLAY_LAG_TARGET_MS, type ReplayResult } from './replay-section.ts';
import { round } from './bench-stats.ts';
import {
  LAG_TARGET_MS,
  LAG_TARGET_RATE,
  SHARE_ACHIEVED_TARGET,
  SHARE_LAG_TARGET_MS,
  type OpenRow,
} from './open-section.ts';
import {
  AUTOCANNON_VERSION,
  FIRST_REQUEST_ROW,
  FIRST_REQUEST_TARGET_MS,
  QUICK_COMMANDS,
  START_UP_TARGET_MS,
  type StartUpSection,
} from './start-up-section.ts';
import type { WorkersSection } from './workers-section.ts';

/** Issue 18's targets, judged in the verdict. */
export const CLOSED_RATIO_TARGET = 1.2;
export const WORKERS_SPEEDUP_TARGET = 1.8;
/** Issue 24's targets: rpcload's CPU per request at most 0.83 × autocannon CLI's; with workers, at most autocannon -w N's. */
export const CPU_RATIO_TARGET = 0.83;
export const WORKERS_CPU_RATIO_TARGET = 1;

/** One target of the verdict: the measured figure, the target, and whether it was met (null: not measured). */
export interface VerdictLine {
  readonly figure: number | null;
  readonly target: number;
  readonly met: boolean | null;
}

export interface BenchVerdict {
  /**
   * Issue 35: the slowest of rpcload's quick commands (--version, --help, profile validate), median
   * wall ms, target ≤ 250 ms and no more than autocannon --version's in the same run.
   */
  readonly startUpMs: VerdictLine & { readonly command: string | null; readonly autocannonMs: number | null };
  /** Issue 35: `rpcload run` from spawn to its first request (one virtual user), median ms, target ≤ 500 ms. */
  readonly firstRequestMs: VerdictLine;
  /** Median of the rounds' rpcload ÷ autocannon CLI requests/s, target ≥ 1.2. */
  readonly closedRatio: VerdictLine;
  /** Median of the rounds' rpcload ÷ autocannon CLI CPU-s per 1,000 requests, target ≤ 0.83. */
  readonly cpuRatio: VerdictLine;
  /** The same in the 5-second rounds (issue 35), target ≤ 0.83 with the throughput ratio ≥ 1.2. */
  readonly shortCpuRatio: VerdictLine & { readonly durationS: number | null; readonly throughputRatio: number | null };
  /** Speed-up of the highest --workers count over the first (one thread), target ≥ 1.8. */
  readonly workersSpeedup: VerdictLine & { readonly workers: number | null };
  /** The highest of the worker counts' rpcload ÷ autocannon -w N CPU ratios, target ≤ 1 (for every N). */
  readonly workersCpuRatio: VerdictLine & { readonly workers: number | null };
  /** Whole-run schedule lag p99 (ms) at 10,000/s on one thread, cold start included, target < 2 ms. */
  readonly runLagP99Ms: VerdictLine;
  /** Whole-run schedule lag p99 (ms) at a share of the closed model's rate, target < 5 ms with ≥ 99.9 % achieved. */
  readonly shareLagP99Ms: VerdictLine & { readonly ratePerS: number | null; readonly achievedRatio: number | null };
}

/** The versions of the tools compared (wrk: null when it was absent and skipped). */
export interface BenchTools {
  readonly rpcload: string;
  readonly autocannon: string;
  readonly wrk: string | null;
}

/** Everything one `npm run bench` measured: what results/bench-<timestamp>.json holds. */
export interface BenchReport {
  readonly schema: 'rpcload/bench@4';
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
  readonly tools: BenchTools;
  readonly config: BenchConfig;
  /** Absent in reports written before the start-up section existed. */
  readonly startUp?: StartUpSection | null;
  readonly closed: ClosedSection | null;
  /** The closed section in shorter rounds (config.closedShortDurationS); absent in earlier reports. */
  readonly closedShort?: ClosedSection | null;
  readonly workers: WorkersSection | null;
  readonly open: readonly OpenRow[] | null;
  readonly memory: MemoryResult | null;
  /** Runs fed by big data files (issue 22); absent in reports written before the section existed. */
  readonly data?: readonly DataRun[] | null;
  /** Absent in reports written before the replay section existed. */
  readonly replay?: ReplayResult | null;
  readonly verdict: BenchVerdict;
}

/** The sections the verdict judges (null: not run). */
export interface JudgedSections {
  readonly startUp: StartUpSection | null;
  readonly closed: ClosedSection | null;
  readonly closedShort: ClosedSection | null;
  readonly workers: WorkersSection | null;
  readonly open: readonly OpenRow[] | null;
}

/** Issue 35's start-up lines: the slowest quick command against 250 ms and autocannon --version; run's first request. */
function startUpVerdict(startUp: StartUpSection | null): Pick<BenchVerdict, 'startUpMs' | 'firstRequestMs'> {
  const row = (name: string) => startUp?.rows.find((r) => r.name === name) ?? null;
  const quick = QUICK_COMMANDS.map(row).filter((r) => r !== null);
  const slowest = quick.length === 0 ? null : quick.reduce((a, b) => (b.medianWallMs > a.medianWallMs ? b : a));
  const autocannonMs = row(AUTOCANNON_VERSION)?.medianWallMs ?? null;
  const first = row(FIRST_REQUEST_ROW)?.medianWallMs ?? null;
  return {
    startUpMs: {
      figure: slowest?.medianWallMs ?? null,
      target: START_UP_TARGET_MS,
      met:
        slowest === null
          ? null
          : slowest.medianWallMs <= START_UP_TARGET_MS &&
            (autocannonMs === null || slowest.medianWallMs <= autocannonMs),
      command: slowest?.name ?? null,
      autocannonMs,
    },
    firstRequestMs: {
      figure: first,
      target: FIRST_REQUEST_TARGET_MS,
      met: first === null ? null : first <= FIRST_REQUEST_TARGET_MS,
    },
  };
}

/** The verdict on issue 18's, 24's and 35's targets from whatever sections ran. */
export function benchVerdict({ startUp, closed, closedShort, workers, open }: JudgedSections): BenchVerdict {
  const ratio = closed?.median.ratios.rpcloadVsAutocannon ?? null;
  const cpu = closed?.median.ratios.cpuRpcloadVsAutocannon ?? null;
  const shortCpu = closedShort?.median.ratios.cpuRpcloadVsAutocannon ?? null;
  const shortThroughput = closedShort?.median.ratios.rpcloadVsAutocannon ?? null;
  const top = workers?.rows.reduce((a, b) => (b.workers > a.workers ? b : a));
  const speedup = top !== undefined && top.workers > 1 ? top.speedup : null;
  const worstCpu = workers?.rows.reduce((a, b) => (b.cpuRatio > a.cpuRatio ? b : a));
  const lag = open?.find((row) => row.runLagTargetMs !== null)?.runLagP99Ms ?? null;
  const shareRow = open?.find((row) => row.shareOfClosed !== null);
  return {
    ...startUpVerdict(startUp),
    closedRatio: {
      figure: ratio,
      target: CLOSED_RATIO_TARGET,
      met: ratio === null ? null : ratio >= CLOSED_RATIO_TARGET,
    },
    cpuRatio: { figure: cpu, target: CPU_RATIO_TARGET, met: cpu === null ? null : cpu <= CPU_RATIO_TARGET },
    shortCpuRatio: {
      figure: shortCpu,
      target: CPU_RATIO_TARGET,
      met: shortCpu === null ? null : shortCpu <= CPU_RATIO_TARGET && shortThroughput! >= CLOSED_RATIO_TARGET,
      durationS: closedShort?.durationS ?? null,
      throughputRatio: shortThroughput,
    },
    workersSpeedup: {
      figure: speedup,
      target: WORKERS_SPEEDUP_TARGET,
      met: speedup === null ? null : speedup >= WORKERS_SPEEDUP_TARGET,
      workers: speedup === null ? null : top!.workers,
    },
    workersCpuRatio: {
      figure: worstCpu?.cpuRatio ?? null,
      target: WORKERS_CPU_RATIO_TARGET,
      met: worstCpu === undefined ? null : worstCpu.cpuRatio <= WORKERS_CPU_RATIO_TARGET,
      workers: worstCpu?.workers ?? null,
    },
    runLagP99Ms: { figure: lag, target: LAG_TARGET_MS, met: lag === null ? null : lag < LAG_TARGET_MS },
    shareLagP99Ms: {
      figure: shareRow?.runLagP99Ms ?? null,
      target: SHARE_LAG_TARGET_MS,
      met: shareRow?.shareTargetMet ?? null,
      ratePerS: shareRow?.targetPerS ?? null,
      achievedRatio: shareRow?.achievedRatio ?? null,
    },
  };
}

const verdictWord = (line: VerdictLine): string =>
  line.met === null ? 'not measured' : line.met ? '**met**' : '**missed**';

function renderVerdict(report: BenchReport): string[] {
  const {
    startUpMs,
    firstRequestMs,
    closedRatio,
    cpuRatio,
    shortCpuRatio,
    workersSpeedup,
    workersCpuRatio,
    runLagP99Ms,
    shareLagP99Ms,
  } = report.verdict;
  const rounds = report.closed?.rounds.length ?? 0;
  const ofRounds = rounds === 0 ? '' : ` (median of ${rounds} rounds' ratios)`;
  const workersTarget = report.workers?.target ?? '';
  const share = report.config.openShareOfClosed;
  return [
    '### Verdict (issue 18, 24 and 35 targets)',
    '',
    `- start-up, the slowest of rpcload --version, --help and profile validate${startUpMs.command === null ? '' : ` (${startUpMs.command})`}: ${startUpMs.figure ?? '-'} ms (autocannon --version ${startUpMs.autocannonMs ?? '-'} ms) — target ≤ ${startUpMs.target} ms and ≤ autocannon --version: ${verdictWord(startUpMs)}`,
    `- \`rpcload run\` from spawn to its first request (1 virtual user): ${firstRequestMs.figure ?? '-'} ms — target ≤ ${firstRequestMs.target} ms: ${verdictWord(firstRequestMs)}`,
    `- closed model, rpcload ÷ autocannon CLI requests/s${ofRounds}: ${closedRatio.figure ?? '-'} — target ≥ ${closedRatio.target}: ${verdictWord(closedRatio)}`,
    `- closed model, rpcload ÷ autocannon CLI CPU-s per 1,000 requests${ofRounds}: ${cpuRatio.figure ?? '-'} — target ≤ ${cpuRatio.target}: ${verdictWord(cpuRatio)}`,
    `- the same in ${shortCpuRatio.durationS === null ? 'short' : `${shortCpuRatio.durationS}-second`} rounds: ${shortCpuRatio.figure ?? '-'} (requests/s ratio ${shortCpuRatio.throughputRatio ?? '-'}) — target ≤ ${shortCpuRatio.target} with requests/s ≥ ${CLOSED_RATIO_TARGET}: ${verdictWord(shortCpuRatio)}`,
    `- \`--workers ${workersSpeedup.workers ?? 'N'}\` speed-up over one thread${workersTarget === '' ? '' : ` (against ${workersTarget})`}: ${workersSpeedup.figure ?? '-'} — target ≥ ${workersSpeedup.target}: ${verdictWord(workersSpeedup)}`,
    `- \`--workers N\` ÷ \`autocannon -w N\` CPU-s per 1,000 requests, the worst N${workersCpuRatio.workers === null ? '' : ` (${workersCpuRatio.workers})`}: ${workersCpuRatio.figure ?? '-'} — target ≤ ${workersCpuRatio.target} for every N: ${verdictWord(workersCpuRatio)}`,
    `- whole-run schedule lag p99 at ${LAG_TARGET_RATE.toLocaleString('en-US')}/s, one thread, cold start included: ${runLagP99Ms.figure ?? '-'} ms — target < ${runLagP99Ms.target} ms: ${verdictWord(runLagP99Ms)}`,
    `- open model at ${share} × the closed model's one-thread rate${shareLagP99Ms.ratePerS === null ? '' : ` (${shareLagP99Ms.ratePerS.toLocaleString('en-US')}/s)`}: ${shareLagP99Ms.achievedRatio === null ? '-' : `${round2(shareLagP99Ms.achievedRatio * 100)} %`} achieved, whole-run lag p99 ${shareLagP99Ms.figure ?? '-'} ms — target ≥ ${SHARE_ACHIEVED_TARGET * 100} % and < ${shareLagP99Ms.target} ms: ${verdictWord(shareLagP99Ms)}`,
  ];
}

const round2 = (value: number): number => Math.round(value * 100) / 100;

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
  f.wallS,
  f.peakRssMb,
  f.p50Ms,
  f.p99Ms,
  f.loadAverage,
  f.cpuPressurePercent ?? '-',
];
const FIGURE_HEADER = [
  '',
  'req/s',
  'CPU-s/1000 req',
  'cores busy',
  'wall s',
  'peak RSS MB',
  'p50 ms',
  'p99 ms',
  'load avg',
  'CPU PSI %',
];

/** The start-up section's table: each command's median wall time (to exit, or to the first request) and CPU. */
function renderStartUp(startUp: StartUpSection): string[] {
  return [
    `### Start-up: each command ${startUp.runs} times in rotating order (load average ${startUp.loadAverage}), medians`,
    '',
    table(
      ['command', 'until', 'median wall ms', 'median CPU ms', 'each run, wall ms'],
      startUp.rows.map((row) => [row.name, row.measure, row.medianWallMs, row.medianCpuMs, row.wallMs.join(', ')]),
    ),
    '',
    `Targets: rpcload's quick commands ≤ ${START_UP_TARGET_MS} ms and ≤ autocannon --version; \`run\` (1 virtual user) to its first request ≤ ${FIRST_REQUEST_TARGET_MS} ms. From 8 virtual users a run warms its code path for 400 ms first.`,
  ];
}

/** The closed section's tables: every round's figures and their medians, then the ratios. */
function renderClosed(c: ClosedSection): string[] {
  const lines: string[] = [];
  lines.push(
    '',
    `### Closed model: ${c.connections} connections, ${c.durationS} s per run, one thread each, each tool a separate command measured from outside`,
    '',
  );
  const rows = c.rounds.flatMap((r) => [
    figureRow(`round ${r.round} rpcload`, r.rpcload),
    figureRow(`round ${r.round} autocannon CLI`, r.autocannon),
    ...(r.wrk === null ? [] : [figureRow(`round ${r.round} wrk`, r.wrk)]),
    figureRow(`round ${r.round} bare undici loop (reference)`, r.bareUndici),
  ]);
  rows.push(
    figureRow('**median rpcload**', c.median.rpcload),
    figureRow('**median autocannon CLI**', c.median.autocannon),
  );
  if (c.median.wrk !== null) rows.push(figureRow('**median wrk**', c.median.wrk));
  rows.push(figureRow('**median bare undici loop**', c.median.bareUndici));
  lines.push(table(FIGURE_HEADER, rows));
  lines.push(
    '',
    'The bare undici loop is one undici Client per connection and a handler that does nothing: the floor of a client on undici (it measures no latency).',
  );
  const ratioRow = (label: string, order: string, r: ClosedRatios): (string | number)[] => [
    label,
    order,
    r.rpcloadVsAutocannon,
    r.rpcloadVsWrk ?? '-',
    r.autocannonVsWrk ?? '-',
    r.cpuRpcloadVsAutocannon,
    r.cpuBareUndiciVsAutocannon,
  ];
  lines.push(
    '',
    table(
      [
        'ratios',
        'order',
        'req/s rpcload ÷ autocannon CLI',
        'req/s rpcload ÷ wrk',
        'req/s autocannon CLI ÷ wrk',
        'CPU/req rpcload ÷ autocannon CLI',
        'CPU/req bare undici ÷ autocannon CLI',
      ],
      [
        ...c.rounds.map((r) => ratioRow(`round ${r.round}`, r.order.join(', '), r.ratios)),
        ratioRow('**median of the rounds**', '', c.median.ratios),
      ],
    ),
  );
  return lines;
}

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
  const t = report.tools;
  const peers =
    report.closed === null
      ? ''
      : `, autocannon ${t.autocannon} (its CLI), ${t.wrk === null ? 'wrk absent (skipped)' : `${t.wrk} (1 thread)`}`;
  out.push(
    `Tools: rpcload ${t.rpcload} (\`node bin/rpcload.js run\`, http.client ${report.config.rpcloadClient ?? 'default'})${peers}; each run as a separate command, CPU and peak RSS measured from outside, its own start-up included.`,
  );
  if (report.startUp) out.push('', ...renderStartUp(report.startUp));
  if (report.closed !== null) out.push(...renderClosed(report.closed));
  if (report.closedShort) out.push(...renderClosed(report.closedShort));
  if (report.workers !== null) {
    out.push(
      '',
      `### rpcload --workers N and autocannon -w N (closed model, same connections in total) against ${report.workers.target}`,
      '',
    );
    out.push(
      table(
        [...FIGURE_HEADER, 'speed-up', 'CPU/req rpcload ÷ autocannon'],
        report.workers.rows.flatMap((w) => {
          const of = `(median of ${w.rounds.length})`;
          return [
            [...figureRow(`rpcload --workers ${w.workers} ${of}`, w.median), w.speedup, w.cpuRatio],
            [...figureRow(`autocannon${w.workers > 1 ? ` -w ${w.workers}` : ''} ${of}`, w.autocannon.median), '', ''],
          ];
        }),
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
      `whole-run p99 < ${LAG_TARGET_MS} ms`,
      `share of closed: ≥ ${SHARE_ACHIEVED_TARGET * 100} %, p99 < ${SHARE_LAG_TARGET_MS} ms`,
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
          o.runLagTargetMet === null ? '' : o.runLagTargetMet ? 'pass' : 'miss',
          o.shareOfClosed === null ? '' : `${o.shareOfClosed}: ${o.shareTargetMet ? 'pass' : 'miss'}`,
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
    out.push(
      '',
      `### Memory: ${mem.clients} clients at ${mem.ratePerS}/s for ${mem.durationS} s (${mem.requests} requests)`,
      '',
    );
    out.push(
      table(
        ['RSS end of 1st half MB', 'RSS end of 2nd half MB', 'growth %', 'peak RSS MB', 'load avg'],
        [[mem.firstHalfRssMb, mem.secondHalfRssMb, mem.growthPercent, mem.peakRssMb, mem.loadAverage]],
      ),
    );
  }
  if (report.data != null && report.data.length > 0) {
    out.push('', `### Data files: peak RSS of runs fed by big files (target < ${DATA_RSS_TARGET_MB} MB each)`, '');
    out.push(
      table(
        ['order', 'rows', 'file MB', 'requests', 'wall s', 'peak RSS MB', `< ${DATA_RSS_TARGET_MB} MB`],
        report.data.map((d) => [
          d.order,
          d.rows,
          d.fileMb,
          d.requests,
          d.wallS,
          d.peakRssMb,
          d.peakRssMb < DATA_RSS_TARGET_MB ? 'yes' : 'NO',
        ]),
      ),
    );
  }
  if (report.replay) {
    const r = report.replay;
    out.push(
      '',
      `### Replay: the last ${r.windowS} s of a ${round(r.recordingBytes / 1024 ** 3, 2)} GB recording (${r.recordedCalls} calls)`,
      '',
    );
    const lagOk = r.scheduleLagP99Ms === null ? '-' : r.scheduleLagP99Ms < REPLAY_LAG_TARGET_MS ? 'yes' : 'NO';
    out.push(
      table(
        [
          'calls sent',
          'calls/s',
          'wall s (scan included)',
          'peak RSS MB',
          'schedule lag p99 ms',
          `lag p99 < ${REPLAY_LAG_TARGET_MS} ms`,
        ],
        [[r.sent, r.ratePerS ?? '-', r.wallS, r.peakRssMb, r.scheduleLagP99Ms ?? '-', lagOk]],
      ),
    );
  }
  out.push('', ...renderVerdict(report));
  return out.join('\n');
}
