/** The result file's figures (Stats, rates, percentiles) read off encoded histograms. */
import { decodeHistogram, percentilesMs } from '../../metrics/hdr.ts';
import type { DimensionData, EncodedPair } from '../../metrics/recorded-data.ts';
import type { Percentiles, Stats } from '../../contract/result-schema.ts';

/** Seconds or per-second rates with 3 decimals. */
export const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/** Requests per second over the run; 0 for a run without duration. */
export const ratePerS = (requests: number, durationS: number): number =>
  durationS > 0 ? round3(requests / durationS) : 0;

/**
 * The figures of the encodings read last. A result reads the same encoding several times: a run of
 * one method, one client and one phase has overall, method, client and phase slices alike (18
 * reads of 6 encodings in a 1-second run, ~1 ms each to decode and read).
 */
const lastRead = new Map<string, { count: number; percentiles: Percentiles }>();
const LAST_READ_SIZE = 64;

/** Count and percentiles (ms) of one encoded histogram. */
export function readEncoded(encoded: string): { count: number; percentiles: Percentiles } {
  let figures = lastRead.get(encoded);
  if (figures === undefined) {
    const histogram = decodeHistogram(encoded);
    figures = { count: histogram.totalCount, percentiles: percentilesMs(histogram) };
    if (lastRead.size >= LAST_READ_SIZE) lastRead.clear();
    lastRead.set(encoded, figures);
  }
  return { count: figures.count, percentiles: { ...figures.percentiles } };
}

const ZERO_PERCENTILES: Percentiles = Object.freeze({ min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });

/**
 * The result file's Stats of one slice, read off its encoded histograms, so that live data, its
 * serialized copy and a merge of parts all give the same figures. No data (a dimension without
 * traffic) → zeros. Without outcome counts (per-outcome slices) `outcomes` is left empty.
 */
export function statsOf(
  data: (EncodedPair & { readonly outcomes?: DimensionData['outcomes'] }) | undefined,
  durationS: number,
): Stats {
  if (data === undefined)
    return {
      requests: 0,
      rps: 0,
      latencyMs: { ...ZERO_PERCENTILES },
      serviceTimeMs: { ...ZERO_PERCENTILES },
      outcomes: {},
    };
  const latency = readEncoded(data.latency);
  return {
    requests: latency.count,
    rps: ratePerS(latency.count, durationS),
    latencyMs: latency.percentiles,
    serviceTimeMs: readEncoded(data.serviceTime).percentiles,
    outcomes: { ...data.outcomes },
  };
}
