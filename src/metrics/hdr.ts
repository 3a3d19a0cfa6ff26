/**
 * HDR histogram helpers shared by the recorder, merge and the report: one place decides value
 * units (integer microseconds), precision, encoding and how percentiles are read off.
 */
import type * as hdr from 'hdr-histogram-js';
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import type { Percentiles } from '../contract/result-schema.ts';

export type Histogram = hdr.Histogram;

/** Every histogram's unit and smallest value: 1 µs. */
const LOWEST_US = 1;

/** 1 µs .. 1 h at 3 significant digits (0.1 % error); grows if a value is larger. */
export function createLatencyHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: LOWEST_US,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    bitBucketSize: 32,
    autoResize: true,
  });
}

/**
 * 1 significant digit (HDR's lowest setting: buckets 1/16–1/32 of the value wide, ≤ 6.25 % error)
 * in 32-bit counts: ~3 KB, small enough to keep one per client. Not 'packed' buckets: those are
 * as small but ~10× slower to record, read and encode.
 */
export function createCompactHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: LOWEST_US,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 1,
    bitBucketSize: 32,
    autoResize: true,
  });
}

/**
 * Record a duration in µs (fractions rounded, values below 1 µs recorded as 1 µs).
 * The hot path of every sample: values below 2^31 µs (35 min) take the counts index from
 * Math.clz32 and shifts, several times faster than the library's Math.log2/Math.pow arithmetic and the same
 * index for every such value (tested); anything else, including a resize, goes through recordValue.
 */
export function recordUs(histogram: Histogram, us: number): void {
  const value = us < 1 ? 1 : Math.round(us);
  const h = histogram as unknown as hdr.JsHistogram;
  if (value < 0x80000000 && h.unitMagnitude === 0) {
    const magnitude = h.subBucketHalfCountMagnitude;
    const bucketIndex = Math.max(31 - Math.clz32(value) - magnitude, 0);
    const index = ((bucketIndex + 1) << magnitude) + (value >>> bucketIndex) - h.subBucketHalfCount;
    if (index < h.countsArrayLength) {
      h.incrementCountAtIndex(index);
      h.updateMinAndMax(value);
      h.incrementTotalCount();
      return;
    }
  }
  histogram.recordValue(value);
}

/**
 * A copy with the same precision, counts and range — into `spare` when it has the same precision
 * and range (a spare kept from an earlier copy), else into a new histogram. Allocating is what
 * costs: a new 3-digit histogram is ~94 KB of fresh memory, 0.2–0.85 ms on a VM where each new page
 * faults; refilling a spare is a copy of its counts (~0.015 ms).
 */
export function copyHistogram(histogram: Histogram, spare?: Histogram): Histogram {
  const copy =
    spare !== undefined &&
    spare.numberOfSignificantValueDigits === histogram.numberOfSignificantValueDigits &&
    spare.highestTrackableValue === histogram.highestTrackableValue
      ? spare
      : build({
          lowestDiscernibleValue: LOWEST_US,
          highestTrackableValue: histogram.highestTrackableValue,
          numberOfSignificantValueDigits: histogram.numberOfSignificantValueDigits as 1 | 2 | 3 | 4 | 5,
          bitBucketSize: 32,
          autoResize: true,
        });
  const from = histogram as unknown as TypedCounts;
  const to = copy as unknown as TypedCounts;
  const counts = from._counts;
  if (
    counts !== undefined &&
    to._counts?.length === counts.length &&
    to.lowestDiscernibleValue === from.lowestDiscernibleValue
  ) {
    // Same layout (precision, lowest value and length fix every count's index): the counts copied
    // as one block, the summary fields as they are. HDR addition walks every index in JS instead —
    // 2–4 ms for a 23,552-count histogram before the JIT has compiled it, at a run's first checkpoint.
    to._counts.set(counts);
    to.setTotalCount(histogram.totalCount);
    to.maxValue = from.maxValue;
    to.minNonZeroValue = from.minNonZeroValue;
    to.startTimeStampMsec = from.startTimeStampMsec;
    to.endTimeStampMsec = from.endTimeStampMsec;
  } else {
    copy.reset();
    copy.add(histogram);
  }
  return copy;
}

/** What copyHistogram reads and writes of hdr-histogram-js's typed-array histograms (every one rpcload makes). */
interface TypedCounts {
  setTotalCount(count: number): void;
  readonly _counts: (ArrayLike<number> & { set(source: ArrayLike<number>): void }) | undefined;
  readonly lowestDiscernibleValue: number;
  maxValue: number;
  minNonZeroValue: number;
  startTimeStampMsec: number;
  endTimeStampMsec: number;
}

/** HdrHistogram V2 compressed base64: the format Java/Go/JS HdrHistogram tools all read. */
export function encodeHistogram(histogram: Histogram): string {
  return encodeIntoCompressedBase64(histogram);
}

/** The inverse of encodeHistogram, as a 32-bit histogram that grows when more is added to it. */
export function decodeHistogram(encoded: string): Histogram {
  const histogram = decodeFromCompressedBase64(encoded, 32, false);
  histogram.autoResize = true;
  return histogram;
}

/**
 * Sum of histograms (exact: HDR addition) into a fresh histogram made by `create` — use the
 * creator of the parts so the sum keeps their precision. An empty list gives an empty histogram.
 */
export function addHistograms(
  histograms: readonly Histogram[],
  create: () => Histogram = createLatencyHistogram,
): Histogram {
  const total = create();
  for (const h of histograms) total.add(h);
  return total;
}

/** Microseconds → milliseconds with 3 decimals (exact for integer µs). */
export function usToMs(us: number): number {
  return Math.round(us) / 1000;
}

/** Milliseconds rounded to 3 decimals, never negative: the result file's `Ms`. */
export function roundMs(ms: number): number {
  return Math.max(0, Math.round(ms * 1000) / 1000);
}

/** hdr-histogram-js's own ulp, so the count rounding below matches getValueAtPercentile bit for bit. */
const ulp = (x: number): number => Math.pow(2, Math.floor(Math.log2(x)) - 52);

/** The count a percentile must reach, rounded exactly as getValueAtPercentile rounds it. */
function countAtPercentile(percentile: number, totalCount: number): number {
  const fpCount = (Math.min(percentile, 100) / 100) * totalCount;
  return Math.max(Math.ceil(fpCount - ulp(fpCount)), 1);
}

// A table, not 2 ** n: Math.pow per counts index made reading percentiles 6× slower.
const POWERS_OF_TWO = Array.from({ length: 64 }, (_, n) => 2 ** n);

/**
 * Values (µs) at the given ascending percentiles, and the mean, in one pass over the counts.
 * Identical to the library's getValueAtPercentile and mean (same rounding, same summation order;
 * tested), but the library's mean walks an iterator object per value and every percentile
 * rescans from zero, several ms on a busy histogram; live views read these a few times a second.
 * For index i in sub-bucket s of bucket b the values are s·2^b … s·2^b + 2^b − 1, so the lowest,
 * highest and median equivalent values come from shifts instead of the library's Math.log2 calls.
 * An empty histogram gives zeros.
 */
export function valuesAtPercentilesUs(
  histogram: Histogram,
  percentiles: readonly number[],
): { valuesUs: number[]; meanUs: number } {
  const h = histogram as unknown as hdr.JsHistogram;
  const total = h.totalCount;
  const valuesUs = percentiles.map(() => 0);
  if (total === 0) return { valuesUs, meanUs: 0 };
  const targets = percentiles.map((p) => countAtPercentile(p, total));
  const half = h.subBucketHalfCount;
  const magnitude = h.subBucketHalfCountMagnitude;
  const exact = h.unitMagnitude === 0;
  // Typed-array histograms expose their counts as the private `_counts`; reading them directly
  // beats a call per index. hdr-histogram-js is pinned to an exact version in package.json because
  // of this and the JsHistogram fields above (subBucketHalfCount…, countsArrayLength); the
  // equivalence tests in test/metrics/hdr.test.ts catch a change of either.
  const counts = (h as { _counts?: ArrayLike<number> })._counts;
  const length = h.countsArrayLength;
  let next = 0;
  let cumulative = 0;
  let sum = 0;
  for (let i = 0; i < length && cumulative < total; i++) {
    const count = counts === undefined ? h.getCountAtIndex(i) : counts[i]!;
    if (count === 0) continue;
    cumulative += count;
    let lowest: number;
    let highest: number;
    if (exact) {
      const bucket = i < 2 * half ? 0 : (i >> magnitude) - 1;
      const size = POWERS_OF_TWO[bucket]!;
      lowest = (i < 2 * half ? i : (i & (half - 1)) + half) * size;
      highest = lowest + size - 1;
      sum += (lowest + (bucket === 0 ? 0 : POWERS_OF_TWO[bucket - 1]!)) * count;
    } else {
      lowest = h.lowestEquivalentValue(h.valueFromIndex(i));
      highest = h.highestEquivalentValue(lowest);
      sum += h.medianEquivalentValue(highest) * count;
    }
    while (next < targets.length && cumulative >= targets[next]!) {
      valuesUs[next] = percentiles[next] === 0 ? lowest : highest;
      next++;
    }
  }
  return { valuesUs, meanUs: sum / total };
}

const PERCENTILE_BLOCK = [0, 50, 90, 99, 99.9, 100] as const;

/**
 * The result file's percentile block (ms, 3 decimals); all zeros for an empty histogram.
 * min and max are read at bucket resolution, like the percentiles, so a live histogram and its
 * encoded/decoded or merged copy always report identical figures.
 */
export function percentilesMs(histogram: Histogram): Percentiles {
  const { valuesUs, meanUs } = valuesAtPercentilesUs(histogram, PERCENTILE_BLOCK);
  const [min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0] = valuesUs;
  return {
    min: usToMs(min),
    mean: usToMs(meanUs),
    p50: usToMs(p50),
    p90: usToMs(p90),
    p99: usToMs(p99),
    p999: usToMs(p999),
    max: usToMs(max),
  };
}

/**
 * How many recorded values are at most `us` (within the histogram's precision: the bucket holding
 * `us` counts whole).
 */
export function countAtOrBelowUs(histogram: Histogram, us: number): number {
  const h = histogram as unknown as hdr.JsHistogram;
  if (histogram.totalCount === 0 || us < 0) return 0;
  if (us >= histogram.maxValue) return histogram.totalCount;
  const last = Math.min(h.countsArrayIndex(Math.max(1, Math.floor(us))), h.countsArrayLength - 1);
  let count = 0;
  for (let i = 0; i <= last; i++) count += h.getCountAtIndex(i);
  return count;
}
