/**
 * Block-character column charts: one column per value, most recent at the right, `rows` cells
 * high with eighth-cell resolution. A one-row chart is the classic sparkline (▁▂▃▅▇). Values are
 * scaled to `max` (default: the largest shown), and any value above zero shows at least one
 * eighth, so a trickle of errors never disappears into the baseline.
 */
const LEVELS = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

export interface ColumnChartOptions {
  readonly width: number;
  readonly rows: number;
  /** The value of a full column; default the largest value shown (at least 1). */
  readonly max?: number;
}

/** The chart's rows, top first, each exactly `width` cells; only the last `width` values show. */
export function columnChart(values: readonly number[], options: ColumnChartOptions): string[] {
  const { width, rows } = options;
  if (width <= 0 || rows <= 0) return [];
  const shown = values.slice(-width);
  const max = options.max ?? Math.max(1, ...shown);
  const eighths = shown.map((v) => (v > 0 ? Math.max(1, Math.min(rows * 8, Math.round((v / max) * rows * 8))) : 0));
  const pad = width - shown.length;
  const lines: string[] = [];
  for (let row = 0; row < rows; row++) {
    const floor = (rows - 1 - row) * 8;
    let line = ' '.repeat(pad);
    for (const e of eighths) line += LEVELS[Math.min(8, Math.max(0, e - floor))]!;
    lines.push(line);
  }
  return lines;
}

/** A one-row chart. */
export function sparkline(values: readonly number[], width: number, max?: number): string {
  return columnChart(values, { width, rows: 1, max })[0] ?? '';
}
