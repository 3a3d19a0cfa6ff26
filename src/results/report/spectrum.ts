/**
 * The HDR percentile spectrum: latency at each percentile on a "nines" axis, where x = n means
 * the percentile 100 × (1 − 10⁻ⁿ): 0 → 0 %, 1 → 90 %, 2 → 99 %, 3 → 99.9 %, … Equal distances
 * are equal factors of "how rare", so the tail gets as much room as the body.
 */
import { usToMs, type Histogram } from '../../metrics/hdr.ts';
import type { Tick } from './scale.ts';

export const MAX_NINES = 5;
const STEP_NINES = 0.05;

/** The percentile (0..100) at x nines. */
export function percentileAtNines(nines: number): number {
  return 100 * (1 - 10 ** -nines);
}

/** [nines, ms] points from 0 to MAX_NINES nines, read off the histogram; empty for no samples. */
export function spectrumPoints(histogram: Histogram): [number, number][] {
  if (histogram.totalCount === 0) return [];
  const points: [number, number][] = [];
  for (let i = 0; i <= Math.round(MAX_NINES / STEP_NINES); i++) {
    const nines = i * STEP_NINES;
    points.push([nines, usToMs(histogram.getValueAtPercentile(percentileAtNines(nines)))]);
  }
  return points;
}

/** Axis ticks at whole nines, labelled as percentiles: 0%, 90%, 99%, 99.9%, … */
export function ninesTicks(): Tick[] {
  return Array.from({ length: MAX_NINES + 1 }, (_, n) => ({ value: n, label: `${Number(percentileAtNines(n).toFixed(n))}%` }));
}
