/**
 * Names of percentiles as thresholds and compare rules write them (`p95`, `p99.9`, `p999`) and the
 * result file's stats keys that hold some of them. Apart from result-percentiles.ts, which reads
 * any percentile from the histograms: parsing a threshold needs no histogram code (so `profile
 * validate` does not load it).
 */
import type { Percentiles } from '../contract/result-schema.ts';

/** `p95`, `p99.9`, `p999` (the result file's name for p99.9) → 95, 99.9, 99.9; null when not a percentile. */
export function percentileOf(name: string): number | null {
  if (name === 'p999') return 99.9;
  const match = /^p(\d{1,2}(?:\.\d+)?|100)$/.exec(name);
  if (!match) return null;
  const q = Number(match[1]);
  return q > 0 && q <= 100 ? q : null;
}

/** The key of the stats block that holds percentile `q`, when it has one. */
export function percentileKey(q: number): keyof Percentiles | null {
  const keys: Partial<Record<number, keyof Percentiles>> = {
    50: 'p50',
    90: 'p90',
    99: 'p99',
    99.9: 'p999',
    100: 'max',
  };
  return keys[q] ?? null;
}
