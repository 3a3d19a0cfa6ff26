/**
 * Number formatting for the dashboard: compact, fixed-ish widths, about three significant digits
 * (like the summary table), so columns do not jitter as values change four times a second.
 */
import { groupThousands } from '../../util/number-format.ts';

/** Milliseconds without a unit: 0.240, 7.66, 23.9, 108, 12345; `–` when not a number. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1) return ms.toFixed(3);
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return String(Math.round(ms));
}

/** Counts with thousands separators up to a million, then 1.23M. */
export function formatCount(n: number): string {
  if (n < 1_000_000) return groupThousands(n);
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
  return `${(n / 1_000_000_000).toFixed(2)}G`;
}

/** Per-second rates: one decimal below 100/s, whole numbers above. */
export function formatRate(perS: number): string {
  if (!Number.isFinite(perS)) return '–';
  return perS < 100 ? perS.toFixed(1) : formatCount(perS);
}

/** A share of a whole as a percentage with one decimal; 0 of 0 is 0.0%. */
export function formatShare(part: number, whole: number): string {
  return `${(whole > 0 ? (100 * part) / whole : 0).toFixed(1)}%`;
}

/** Seconds with one decimal, for countdowns and check timings: 4.2s, 12.0s. */
export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}

const PARTIAL_BLOCKS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'] as const;

/** A progress bar of exactly `width` cells, in eighths of a cell: `██████▍░░░`. */
export function progressBar(fraction: number, width: number): string {
  if (width <= 0) return '';
  const clamped = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  const eighths = Math.round(clamped * width * 8);
  const full = Math.floor(eighths / 8);
  const partial = full < width ? PARTIAL_BLOCKS[eighths % 8]! : '';
  return `${'█'.repeat(full)}${partial}`.padEnd(width, '░');
}

/**
 * The smallest round number (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 × 10^k) at or above `value`, for chart
 * scales: fine enough steps that a line never sits in the bottom half for want of a scale; 1 for 0.
 */
export function niceCeiling(value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    // Rounding keeps 0.3 × 10 from becoming 3.0000000000000004 and skipping a step.
    const candidate = Number((step * magnitude).toPrecision(12));
    if (candidate >= value) return candidate;
  }
  return 10 * magnitude;
}
