/**
 * Any percentile of a result file, not only the p50/p90/p99/p99.9 its stats blocks carry: read
 * from the encoded HDR histograms the file keeps behind every figure (overall, per method, per
 * phase), so `p95 < 100ms`, `p75` or `p99.99` mean the same thing wherever they are accepted.
 */
import type { RunResult } from '../contract/result-schema.ts';
import { decodeHistogram, usToMs, valuesAtPercentilesUs } from './hdr.ts';

/**
 * Which figure's histogram: latency, service time or schedule lag; overall, one method, one phase,
 * or one threshold selection (its canonical selector text, see profile/thresholds.ts).
 */
export interface HistogramScope {
  readonly source: 'latency' | 'serviceTime' | 'scheduleLag';
  readonly method?: string | null;
  readonly phase?: string | null;
  readonly selector?: string | null;
}

/** The encoded histogram of a scope, or undefined when the result has none (a method never called). */
function encodedOf(result: RunResult, scope: HistogramScope): string | undefined {
  const h = result.histograms;
  if (scope.selector) return h.bySelector?.[scope.selector]?.[scope.source];
  if (scope.source === 'scheduleLag') return scope.phase ? h.scheduleLagByPhase?.[scope.phase] : h.scheduleLag;
  if (scope.method) return h.byMethod[scope.method]?.[scope.source];
  if (scope.phase) return h.byPhase[scope.phase]?.[scope.source];
  return h[scope.source];
}

/** Percentile `q` (0 < q ≤ 100) of a scope in ms (3 decimals, as the file's own figures); null when there is no histogram or it is empty. */
export function resultPercentileMs(result: RunResult, scope: HistogramScope, q: number): number | null {
  const encoded = encodedOf(result, scope);
  if (encoded === undefined) return null;
  const histogram = decodeHistogram(encoded);
  if (histogram.totalCount === 0) return null;
  return usToMs(valuesAtPercentilesUs(histogram, [q]).valuesUs[0]!);
}
