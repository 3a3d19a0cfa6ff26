/**
 * Where the run dashboard's panels go at a terminal size. The screen is a stack of bands (rows of
 * panels side by side); each band has a priority and a minimum and maximum height. Bands get
 * their minimum in priority order, and one that no longer fits is dropped (so a short terminal
 * loses the log and clients first, never the header or the percentiles); the rows left over are
 * shared among the bands that can grow. Narrow terminals stack one panel per band and drop the
 * latency-over-time chart and the log.
 */
import type { Rect } from '../text/canvas.ts';

export type RunPanelId =
  'header' | 'percentiles' | 'outcomes' | 'workloads' | 'throughput' | 'latencyChart' | 'clients' | 'log';

export type RunLayout = Readonly<Partial<Record<RunPanelId, Rect>>>;

export interface Size {
  readonly width: number;
  readonly height: number;
}

interface PanelSlot {
  readonly id: RunPanelId;
  /** Fixed width in cells; panels without one share what is left by weight. */
  readonly fixed?: number;
  readonly weight?: number;
  /** A flexible panel never grows past this (the last panel of the band takes the rest). */
  readonly max?: number;
}

interface Band {
  readonly panels: readonly PanelSlot[];
  readonly min: number;
  readonly max: number;
  /** 0 = kept first. */
  readonly priority: number;
}

/** Below this width panels are stacked, one per band. */
export const WIDE_LAYOUT_MIN_WIDTH = 72;
/** The percentiles panel: a label column and two value columns, plus borders. */
export const PERCENTILES_WIDTH = 28;

const WIDE_BANDS: readonly Band[] = [
  { panels: [{ id: 'header' }], min: 3, max: 3, priority: 0 },
  { panels: [{ id: 'percentiles', fixed: PERCENTILES_WIDTH }, { id: 'outcomes' }], min: 9, max: 9, priority: 1 },
  { panels: [{ id: 'throughput' }, { id: 'latencyChart' }], min: 5, max: 14, priority: 2 },
  {
    panels: [
      { id: 'clients', weight: 60, max: 64 },
      { id: 'log', weight: 40 },
    ],
    min: 4,
    max: Number.POSITIVE_INFINITY,
    priority: 3,
  },
];

const NARROW_BANDS: readonly Band[] = [
  { panels: [{ id: 'header' }], min: 3, max: 3, priority: 0 },
  { panels: [{ id: 'percentiles' }], min: 9, max: 9, priority: 1 },
  { panels: [{ id: 'outcomes' }], min: 4, max: 9, priority: 2 },
  { panels: [{ id: 'throughput' }], min: 5, max: 10, priority: 3 },
  { panels: [{ id: 'clients' }], min: 4, max: Number.POSITIVE_INFINITY, priority: 4 },
];

/** Band heights: minimums by priority (dropping what does not fit), then the rest shared out. */
function bandHeights(bands: readonly Band[], height: number): number[] {
  const heights = bands.map(() => 0);
  let left = height;
  const byPriority = [...bands.keys()].sort((a, b) => bands[a]!.priority - bands[b]!.priority);
  for (const i of byPriority) {
    const band = bands[i]!;
    if (band.min <= left) heights[i] = band.min;
    else if (band.priority === 0) heights[i] = left; // the header is never dropped, only clipped
    left -= heights[i]!;
  }
  // Share the rest evenly among the bands that can grow; the lowest priority gets the odd row.
  while (left > 0) {
    const growable = byPriority.filter((i) => heights[i]! > 0 && heights[i]! < bands[i]!.max).reverse();
    if (growable.length === 0) break;
    const share = Math.ceil(left / growable.length);
    for (const i of growable) {
      const add = Math.min(share, bands[i]!.max - heights[i]!, left);
      heights[i]! += add;
      left -= add;
    }
  }
  return heights;
}

/** Panel widths within one band: fixed ones first, the rest by weight, the last taking the remainder. */
function panelWidths(panels: readonly PanelSlot[], width: number): number[] {
  const fixedTotal = panels.reduce((sum, p) => sum + (p.fixed ?? 0), 0);
  const flexible = panels.filter((p) => p.fixed === undefined);
  const weightTotal = flexible.reduce((sum, p) => sum + (p.weight ?? 1), 0);
  const rest = Math.max(0, width - fixedTotal);
  let given = 0;
  return panels.map((p, i) => {
    if (i === panels.length - 1) return Math.max(0, width - given);
    const w =
      p.fixed ?? Math.min(p.max ?? Number.POSITIVE_INFINITY, Math.floor((rest * (p.weight ?? 1)) / weightTotal));
    given += w;
    return w;
  });
}

/**
 * The workloads band, for a run that shows them: below the figures of the whole run and kept
 * before the charts and the clients (a short terminal loses those first); it asks for all its
 * lines up to WORKLOADS_MIN_LINES (more only from rows left over) and never grows past them.
 */
function workloadsBand(lines: number, priority: number): Band {
  return { panels: [{ id: 'workloads' }], min: Math.min(WORKLOADS_MIN_LINES, lines) + 2, max: lines + 2, priority };
}

/** The workloads panel's content rows it is given before the bands after it: a head and five rows. */
const WORKLOADS_MIN_LINES = 6;

/** Bands with the workloads band after the percentiles (wide) or the outcomes (narrow); unchanged when it has no lines. */
function withWorkloads(bands: readonly Band[], lines: number): readonly Band[] {
  if (lines <= 0) return bands;
  const after = bands.findIndex((band) =>
    band.panels.some((p) => p.id === (bands === WIDE_BANDS ? 'percentiles' : 'outcomes')),
  );
  const band = workloadsBand(lines, bands[after]!.priority + 0.5);
  return [...bands.slice(0, after + 1), band, ...bands.slice(after + 1)];
}

/**
 * The panels shown at `size` and their rectangles; panels that do not fit are absent.
 * `workloadLines`: the lines the workloads panel wants (0: the run shows no workloads panel).
 */
export function planRunLayout(size: Size, workloadLines = 0): RunLayout {
  const bands = withWorkloads(size.width >= WIDE_LAYOUT_MIN_WIDTH ? WIDE_BANDS : NARROW_BANDS, workloadLines);
  const heights = bandHeights(bands, Math.max(0, size.height));
  const layout: Partial<Record<RunPanelId, Rect>> = {};
  let y = 0;
  bands.forEach((band, i) => {
    const height = heights[i]!;
    if (height === 0) return;
    let x = 0;
    panelWidths(band.panels, size.width).forEach((width, j) => {
      layout[band.panels[j]!.id] = { x, y, width, height };
      x += width;
    });
    y += height;
  });
  return layout;
}
