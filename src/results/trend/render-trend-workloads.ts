/**
 * The per-workload part of `rpcload trend`'s output: the latest run's workloads (achieved rate,
 * goodput, p50, p99, errors, what moved against the runs before it) and one line per workload
 * only the latest run or only the runs before it had.
 */
import { sanitizeText } from '../../util/sanitize.ts';
import { formatMs, renderTable } from '../text-table.ts';
import type { TrendFlag } from './trend-judge.ts';
import type { WorkloadInOneRun, WorkloadTrend, WorkloadTrendRow } from './trend-workloads.ts';

const round = (v: number): string => String(Math.round(v * 1000) / 1000);

/** "p99 +40% (median 12.5, noise ±1.25)". */
export function trendChange(f: TrendFlag): string {
  const relative = f.median === 0 ? '' : ` ${f.value >= f.median ? '+' : ''}${Math.round(((f.value - f.median) / Math.abs(f.median)) * 100)}%`;
  return `${f.metric}${relative} (median ${round(f.median)}, noise ±${round(f.noise)})`;
}

/** "WORSE: p99 +40% (…); BETTER: goodput +12% (…)", or '' when nothing moved. */
export function trendFlagCell(r: { readonly flags: readonly TrendFlag[]; readonly improvements: readonly TrendFlag[] }): string {
  return [
    r.flags.length === 0 ? '' : `WORSE: ${r.flags.map(trendChange).join(', ')}`,
    r.improvements.length === 0 ? '' : `BETTER: ${r.improvements.map(trendChange).join(', ')}`,
  ]
    .filter(Boolean)
    .join('; ');
}

/** "workload orders: only in the latest run, no history to judge it by" */
export function workloadInOneRunText(w: WorkloadInOneRun, name: string = w.name): string {
  return w.only === 'latest'
    ? `workload ${name}: only in the latest run, no history to judge it by`
    : `workload ${name}: in the runs before, not in the latest`;
}

const perS = (v: number | null): string => (v === null ? '–' : `${v.toFixed(1)}/s`);
const ms = (v: number | null): string => (v === null ? '–' : formatMs(v));
const share = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)}%`);

/** A row's cells: workload, achieved/s, goodput/s, p50 ms, p99 ms, errors, history, what moved. */
export function workloadCells(r: WorkloadTrendRow, name: string): string[] {
  return [name, perS(r.achievedPerS), perS(r.goodputPerS), ms(r.p50Ms), ms(r.p99Ms), share(r.errorRate), String(r.history), trendFlagCell(r)];
}

export const WORKLOAD_HEADERS = ['workload', 'achieved', 'goodput', 'p50 ms', 'p99 ms', 'errors', 'runs before', ''] as const;

/** The terminal lines: a title, the table, the workloads in one run only. */
export function workloadTrendTable(trend: WorkloadTrend): string[] {
  const columns = WORKLOAD_HEADERS.map((header, i) => ({ header, align: i === 0 || i === 7 ? ('left' as const) : ('right' as const) }));
  const rows = trend.rows.map((r) => workloadCells(r, sanitizeText(r.name, 30)));
  return [
    'per workload, the latest run against the runs before it that had it:',
    ...renderTable(columns, rows),
    ...trend.inOneRun.map((w) => workloadInOneRunText(w, sanitizeText(w.name, 30))),
  ];
}
