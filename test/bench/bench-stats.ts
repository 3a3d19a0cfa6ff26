/** Small statistics and machine readings shared by the bench sections: medians, rounding, result files, load average, CPU pressure. */
import { readFileSync } from 'node:fs';
import type * as hdr from 'hdr-histogram-js';
import { decodeHistogram } from '../../src/metrics/hdr.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';

/** Median of a non-empty list (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const round = (value: number, digits = 3): number => Math.round(value * 10 ** digits) / 10 ** digits;

/** How many values of an encoded histogram (µs) lie above `thresholdUs` (bucket resolution). */
export function countAboveUs(encoded: string, thresholdUs: number): number {
  const h = decodeHistogram(encoded) as unknown as hdr.JsHistogram;
  let count = 0;
  for (let i = 0; i < h.countsArrayLength; i++) {
    const n = h.getCountAtIndex(i);
    if (n > 0 && h.lowestEquivalentValue(h.valueFromIndex(i)) > thresholdUs) count += n;
  }
  return count;
}

export function readRunResult(path: string): RunResult {
  return JSON.parse(readFileSync(path, 'utf8')) as RunResult;
}

/**
 * CPU pressure (Linux PSI, /proc/pressure/cpu "some avg10"): the share of the last 10 s in which
 * some runnable task waited for a CPU; null where PSI is missing. On a shared machine it says more
 * about how far a run was slowed by others than the load average does.
 */
export function cpuPressurePercent(): number | null {
  try {
    const match = /^some avg10=([\d.]+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/** Current 1-minute load average (0 where the OS has none). */
export async function loadAverage(): Promise<number> {
  const { loadavg } = await import('node:os');
  return round(loadavg()[0] ?? 0, 2);
}
