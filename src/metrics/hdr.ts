import * as hdr from 'hdr-histogram-js';
import type { Percentiles } from '../results/result-schema.ts';

/**
 * HDR histogram helpers shared by the recorder, merge and the report: one place decides value
 * units (integer microseconds), precision, encoding and how percentiles are read off.
 */
export type Histogram = hdr.Histogram;

/** 1 µs .. 1 h at 3 significant digits (0.1 % error); grows if a value is larger. */
export function createLatencyHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3, bitBucketSize: 32, autoResize: true });
}

/** 2 significant digits (1 % error) in packed buckets: small enough to keep one per client. */
export function createCompactHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 2, bitBucketSize: 'packed', autoResize: true });
}

/** Record a duration in µs (fractions rounded, values below 1 µs recorded as 1 µs). */
export function recordUs(histogram: Histogram, us: number): void {
  histogram.recordValue(us < 1 ? 1 : Math.round(us));
}

/** HdrHistogram V2 compressed base64: the format Java/Go/JS HdrHistogram tools all read. */
export function encodeHistogram(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decodeHistogram(encoded: string): Histogram {
  const histogram = hdr.decodeFromCompressedBase64(encoded, 32, false);
  histogram.autoResize = true;
  return histogram;
}

/** Sum of histograms (exact: HDR addition); an empty list gives an empty latency histogram. */
export function addHistograms(histograms: readonly Histogram[]): Histogram {
  const total = createLatencyHistogram();
  for (const h of histograms) total.add(h);
  return total;
}

/** Microseconds → milliseconds with 3 decimals (exact for integer µs). */
export function usToMs(us: number): number {
  return Math.round(us) / 1000;
}

const EMPTY_PERCENTILES: Percentiles = Object.freeze({ min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });

/**
 * The result file's percentile block (ms, 3 decimals); all zeros for an empty histogram.
 * min and max are read at bucket resolution, like the percentiles, so a live histogram and its
 * encoded/decoded or merged copy always report identical figures.
 */
export function percentilesMs(histogram: Histogram): Percentiles {
  if (histogram.totalCount === 0) return { ...EMPTY_PERCENTILES };
  return {
    min: usToMs(histogram.getValueAtPercentile(0)),
    mean: usToMs(histogram.mean),
    p50: usToMs(histogram.getValueAtPercentile(50)),
    p90: usToMs(histogram.getValueAtPercentile(90)),
    p99: usToMs(histogram.getValueAtPercentile(99)),
    p999: usToMs(histogram.getValueAtPercentile(99.9)),
    max: usToMs(histogram.getValueAtPercentile(100)),
  };
}
