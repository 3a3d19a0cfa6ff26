/**
 * One row per workload, for a run of several (or of a replay): what its schedule offers now
 * against what it achieved in the last second, its latency, schedule lag, errors, 429s and
 * goodput; under a replay's row, its progress through the recording — calls sent against calls
 * fallen due so far, and against the whole window (or the pass it is on, when it loops). A
 * workload that has not started yet, or has ended, is dimmed. Columns drop from the right of the
 * least telling first (p50, goodput, 429s, lag) when the panel is narrow.
 */
import type { LiveWorkloadRow } from '../../contract/live-snapshot.ts';
import type { WorkloadInfo } from '../../contract/live-view.ts';
import { cellText, padEnd, padStart } from '../text/cell-text.ts';
import { formatCount, formatMs, formatRate } from '../text/format.ts';
import { seg, type Style, type StyledLine } from '../text/styled.ts';
import { LAG_WARN_MS } from './percentiles-panel.ts';
import type { RunFrameModel } from './run-model.ts';

interface Column {
  readonly id: string;
  readonly head: string;
  readonly width: number;
  readonly cell: (
    row: LiveWorkloadRow,
    offeredPerS: number | null,
  ) => { readonly text: string; readonly style?: Style };
}

/** Columns in display order; DROP_ORDER says which go first when the panel is narrow. */
const COLUMNS: readonly Column[] = [
  {
    id: 'offered',
    head: 'offered/s',
    width: 10,
    cell: (_, offered) => ({ text: offered === null ? '–' : formatRate(offered) }),
  },
  { id: 'achieved', head: 'achieved/s', width: 11, cell: (row) => ({ text: formatRate(row.rpsLastSecond) }) },
  {
    id: 'p50',
    head: 'p50',
    width: 7,
    cell: (row) => ({ text: row.requests === 0 ? '–' : formatMs(row.latencyMs.p50) }),
  },
  {
    id: 'p99',
    head: 'p99',
    width: 7,
    cell: (row) => ({ text: row.requests === 0 ? '–' : formatMs(row.latencyMs.p99), style: 'strong' }),
  },
  {
    id: 'lag',
    head: 'lag p99',
    width: 8,
    cell: (row) =>
      row.scheduleLagP99Ms === null
        ? { text: '–' }
        : {
            text: formatMs(row.scheduleLagP99Ms),
            ...(row.scheduleLagP99Ms > LAG_WARN_MS ? { style: 'bad' as const } : {}),
          },
  },
  {
    id: 'errors',
    head: 'errors',
    width: 7,
    cell: (row) => ({ text: formatCount(row.errors), ...(row.errors > 0 ? { style: 'bad' as const } : {}) }),
  },
  {
    id: '429',
    head: '429',
    width: 6,
    cell: (row) => ({ text: formatCount(row.rateLimited), ...(row.rateLimited > 0 ? { style: 'warn' as const } : {}) }),
  },
  { id: 'goodput', head: 'goodput', width: 9, cell: (row) => ({ text: formatCount(row.goodput) }) },
];
const DROP_ORDER = ['p50', 'goodput', '429', 'lag', 'errors', 'offered'];
/** The workload's name gets at least this many cells. */
const NAME_MIN = 18;

/** The columns that fit `width` with the name column. */
function fittingColumns(width: number): Column[] {
  let columns = [...COLUMNS];
  for (const id of DROP_ORDER) {
    if (NAME_MIN + columns.reduce((sum, c) => sum + c.width, 0) <= width) break;
    columns = columns.filter((c) => c.id !== id);
  }
  return columns;
}

/** The lines the panel wants at full height: a head, a row per workload, a progress line per replay. */
export function workloadsPanelLines(model: RunFrameModel): number {
  const workloads = model.header.workloads ?? [];
  return 1 + workloads.length + workloads.filter((w) => w.replay !== undefined).length;
}

export function workloadsTitle(model: RunFrameModel): StyledLine {
  const workloads = model.header.workloads ?? [];
  const playing = workloads.filter((w) => isPlaying(w, model.snapshot.elapsedMs)).length;
  return [seg('workloads'), seg(` · ${playing} of ${workloads.length} playing · offered vs achieved`, 'dim')];
}

function isPlaying(workload: WorkloadInfo, elapsedMs: number): boolean {
  return elapsedMs >= workload.startMs && elapsedMs < workload.endMs;
}

export function workloadsLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const { header, snapshot, gauges } = model;
  const columns = fittingColumns(width);
  const name = Math.max(NAME_MIN, width - columns.reduce((sum, c) => sum + c.width, 0));
  const lines: StyledLine[] = [
    [seg(padEnd('workload', name), 'dim'), ...columns.map((c) => seg(padStart(c.head, c.width), 'dim'))],
  ];
  (header.workloads ?? []).forEach((workload, w) => {
    const row = snapshot.workloads.find((r) => r.name === workload.name) ?? emptyRow(workload.name);
    const offered = workload.open ? (gauges?.offeredPerS[w] ?? 0) : null;
    const dim = !isPlaying(workload, snapshot.elapsedMs);
    const label = `${cellText(workload.name, 60)} ${cellText(workload.load, 40)}`;
    lines.push([
      seg(padEnd(label, name), dim ? 'dim' : null),
      ...columns.map((c) => {
        const { text, style } = c.cell(row, offered);
        return seg(padStart(text, c.width), dim ? 'dim' : (style ?? null));
      }),
    ]);
    if (workload.replay !== undefined) lines.push(replayLine(workload, row, gauges?.replayReleased[w] ?? 0, width));
  });
  if (lines.length <= height) return lines;
  const shown = lines.slice(0, Math.max(0, height - 1));
  return [...shown, [seg(`+${lines.length - shown.length} more`, 'dim')]];
}

/**
 * A replay's progress: calls sent (released less those skipped) against calls fallen due so far,
 * and the share of all it will send (its window once, or its -n), or the pass it is on when it
 * loops without an end in calls.
 */
export function replayLine(workload: WorkloadInfo, row: LiveWorkloadRow, released: number, width: number): StyledLine {
  const replay = workload.replay!;
  const sent = Math.max(0, released - row.skipped);
  const total = replay.maxCalls ?? (replay.loop ? null : replay.callsInWindow);
  const progress =
    total === null
      ? `pass ${Math.floor(released / Math.max(1, replay.callsInWindow)) + 1} of ${formatCount(replay.callsInWindow)} calls`
      : `${Math.floor((100 * Math.min(released, total)) / Math.max(1, total))}% of ${formatCount(total)} calls`;
  const text = ` ↳ ${cellText(replay.fileName, 60)} ×${replay.speed}: sent ${formatCount(sent)} of ${formatCount(released)} due · ${progress}`;
  return [seg(padEnd(text, width), row.skipped > 0 && sent < released ? 'warn' : 'dim')];
}

function emptyRow(name: string): LiveWorkloadRow {
  return {
    name,
    requests: 0,
    success: 0,
    rateLimited: 0,
    errors: 0,
    rpsLastSecond: 0,
    latencyMs: { p50: 0, p99: 0 },
    scheduleLagP99Ms: null,
    goodput: 0,
    skipped: 0,
  };
}
