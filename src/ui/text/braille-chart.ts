/**
 * A line chart in braille characters: each cell holds a 2×4 grid of dots, so a chart `width`
 * cells wide shows 2 × width points and `height` cells high has 4 × height levels. Points are
 * one per dot column, most recent at the right; consecutive points are joined by filling the
 * dot column between their levels; null is a gap (e.g. a second with no completions).
 */
export interface BrailleChartOptions {
  readonly width: number;
  readonly height: number;
  /** The value at the top edge (values above are clipped to it). */
  readonly max: number;
}

export interface BrailleChart {
  /** `height` strings of exactly `width` cells, top first; empty cells are spaces. */
  readonly rows: readonly string[];
  /** Per row and cell: the highest series index with a dot in that cell, -1 for none (for colour). */
  readonly owners: readonly (readonly number[])[];
}

// Dot bits by [dx][dy], dy 0 = top of the cell (Unicode braille patterns, U+2800 + bits).
const DOT_BITS = [
  [0x01, 0x02, 0x04, 0x40],
  [0x08, 0x10, 0x20, 0x80],
] as const;

/** The dot level (0 = bottom) of a value, or null for a gap. */
function levelOf(value: number | null, max: number, levels: number): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const ratio = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  return Math.round(ratio * (levels - 1));
}

export function brailleChart(
  series: readonly (readonly (number | null)[])[],
  options: BrailleChartOptions,
): BrailleChart {
  const width = Math.max(0, options.width);
  const height = Math.max(0, options.height);
  const levels = height * 4;
  const bits = Array.from({ length: height }, () => new Array<number>(width).fill(0));
  const owners = Array.from({ length: height }, () => new Array<number>(width).fill(-1));
  const points = width * 2;
  const dot = (x: number, level: number, index: number): void => {
    const row = height - 1 - Math.floor(level / 4);
    const cell = Math.floor(x / 2);
    bits[row]![cell]! |= DOT_BITS[x % 2]![3 - (level % 4)]!;
    owners[row]![cell] = Math.max(owners[row]![cell]!, index);
  };
  series.forEach((values, index) => {
    if (levels === 0) return;
    const shown = values.slice(-points);
    const offset = points - shown.length;
    let previous: number | null = null;
    shown.forEach((value, i) => {
      const level = levelOf(value, options.max, levels);
      if (level === null) {
        previous = null;
        return;
      }
      // Join to the previous point: fill this dot column from just past it up (or down) to here.
      const from: number =
        previous === null || previous === level ? level : previous < level ? previous + 1 : previous - 1;
      for (let l = Math.min(from, level); l <= Math.max(from, level); l++) dot(offset + i, l, index);
      previous = level;
    });
  });
  const rows = bits.map((row) => row.map((b) => (b === 0 ? ' ' : String.fromCharCode(0x2800 + b))).join(''));
  return { rows, owners };
}
