/**
 * Current latency percentiles (cumulative since the start) with service time beside them, and
 * schedule lag p99: how late requests left compared with their schedule. A lag p99 above
 * LAG_WARN_MS means the generator, not the server, is the bottleneck, and the panel says so.
 */
import type { Percentiles } from '../../contract/result-schema.ts';
import { padEnd, padStart } from '../text/cell-text.ts';
import { formatMs } from '../text/format.ts';
import { seg, type StyledLine } from '../text/styled.ts';
import type { RunFrameModel } from './run-model.ts';

export const LAG_WARN_MS = 5;

const ROWS: readonly { readonly label: string; readonly key: keyof Percentiles }[] = [
  { label: 'p50', key: 'p50' },
  { label: 'p90', key: 'p90' },
  { label: 'p99', key: 'p99' },
  { label: 'p99.9', key: 'p999' },
  { label: 'max', key: 'max' },
];
// When rows must go, keep the column heads, p50, p99 and lag; p90, p99.9 and max go first.
const KEEP_ORDER = ['head', 'p50', 'p99', 'lag', 'max', 'p90', 'p99.9'] as const;
const LABEL = 6;

export function lagIsBehind(lagP99Ms: number | null): boolean {
  return lagP99Ms !== null && lagP99Ms > LAG_WARN_MS;
}

export function percentilesTitle(model: RunFrameModel): StyledLine {
  const lag = model.snapshot.scheduleLagMs?.p99 ?? null;
  return lagIsBehind(lag)
    ? [seg('latency ms'), seg(' · lag high!', 'bad')]
    : [seg('latency ms'), seg(' · overall', 'dim')];
}

export function percentilesLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const { latencyMs, serviceTimeMs, scheduleLagMs } = model.snapshot;
  const column = Math.min(10, Math.max(4, Math.floor((width - LABEL) / 2)));
  const empty = model.snapshot.requests === 0;
  const value = (ms: number): string => padStart(empty ? '–' : formatMs(ms), column);
  const rows = new Map<string, StyledLine>();
  rows.set('head', [
    seg(padEnd('', LABEL)),
    seg(padStart('latency', column), 'dim'),
    seg(padStart('service', column), 'dim'),
  ]);
  for (const { label, key } of ROWS) {
    rows.set(label, [
      seg(padEnd(label, LABEL)),
      seg(value(latencyMs[key]), key === 'p99' ? 'strong' : null),
      seg(value(serviceTimeMs[key])),
    ]);
  }
  const lag = scheduleLagMs?.p99 ?? null;
  rows.set(
    'lag',
    lag === null
      ? [seg('lag p99'), seg(padStart('–', LABEL + column - 7)), seg('  closed model', 'dim')]
      : [
          seg('lag p99'),
          seg(padStart(formatMs(lag), LABEL + column - 7), lagIsBehind(lag) ? 'bad' : null),
          lagIsBehind(lag) ? seg('  BEHIND', 'bad') : seg('  ok', 'ok'),
        ],
  );
  const order = ['head', ...ROWS.map((r) => r.label), 'lag'];
  const kept = new Set(KEEP_ORDER.slice(0, Math.max(0, height)));
  return order.filter((key) => kept.has(key as (typeof KEEP_ORDER)[number])).map((key) => rows.get(key)!);
}
