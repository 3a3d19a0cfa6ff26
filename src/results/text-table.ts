/**
 * Plain-text alignment and figure formatting for terminal summaries (and the report's cells). Widths are measured on the text before any color
 * is applied, so colored and plain output line up the same; cells must be single-width text.
 */
import { parseThreshold } from '../profile/thresholds.ts';
import { groupThousands } from '../util/number-format.ts';

export type Align = 'left' | 'right';

export interface Column {
  readonly header: string;
  readonly align: Align;
}

/** Lines of a table: a header row, then one line per row, columns two spaces apart. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    columns
      .map((c, i) => (c.align === 'left' ? (cells[i] ?? '').padEnd(widths[i]!) : (cells[i] ?? '').padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)];
}

/** 12345 → "12,345". */
export const formatCount = (n: number): string => groupThousands(n);

/** Milliseconds with precision that fits their size: 0.123, 4.56, 78.9, 1234. */
export function formatMs(ms: number): string {
  if (ms < 1) return ms.toFixed(3);
  if (ms < 10) return ms.toFixed(2);
  if (ms < 1000) return ms.toFixed(1);
  return ms.toFixed(0);
}

/** A share of a total as a percentage: "97.2%", "<0.1%", "0%". */
export function formatShare(part: number, total: number): string {
  if (total <= 0 || part <= 0) return '0%';
  const percent = (100 * part) / total;
  return percent < 0.1 ? '<0.1%' : `${percent.toFixed(1)}%`;
}

/** A threshold's actual value in the unit its expression was written in (e.g. 0.14% for `rate_limited < 10%`, 3.2 ms for `p99 < 5ms`). */
export function thresholdActual(expr: string, actual: number | null): string {
  if (actual === null) return 'n/a';
  let unit = '';
  try {
    const parsed = parseThreshold(expr);
    // A latency written without a unit is in ms.
    unit = parsed.unit === '' && parsed.metric.kind === 'latency' ? 'ms' : parsed.unit;
  } catch {
    // an expression this version cannot parse (a newer file): the bare number still reads
  }
  const rounded = String(Math.round(actual * 1000) / 1000);
  return unit === '%' ? `${rounded}%` : unit === '' ? rounded : `${rounded} ${unit}`;
}
