/**
 * Thresholds judged on a finished result file: the figures of a threshold's selection, read from
 * the file's stats blocks or, for a percentile they lack, from its histograms. Apart from
 * thresholds.ts so that parsing a threshold (every `profile validate`) loads no histogram code.
 */
import type { Percentiles, RunResult, Stats, ThresholdResult } from '../contract/result-schema.ts';
import { percentileKey, percentileOf } from '../metrics/percentile-names.ts';
import { resultPercentileMs } from '../metrics/result-percentiles.ts';
import { judgeThreshold, type ParsedThreshold, type SelectorTerm, type ThresholdFigures } from './thresholds.ts';

/** The threshold's verdict on a result; `actual` in the unit the expression was written in. */
export function evaluateThreshold(threshold: ParsedThreshold, result: RunResult): ThresholdResult {
  return judgeThreshold(threshold, resultFigures(result, threshold.selector, threshold.selectorKey));
}

/**
 * The figures of a selection of a finished result: the whole run, its slice in `bySelector`
 * (kept for every selector a threshold of the run names), or — in files written before selectors —
 * the method's own block. Null when the result has none (a method never called).
 */
export function resultFigures(
  result: RunResult,
  selector: readonly SelectorTerm[],
  selectorKey: string,
): ThresholdFigures | null {
  const onlyMethod = selector.length === 1 && selector[0]!.key === 'method' ? selector[0]!.value : null;
  const slice = selectorKey === '' ? undefined : result.bySelector?.[selectorKey];
  const stats: (Stats & { scheduleLagMs?: Percentiles | null }) | undefined =
    selectorKey === '' ? result.summary : (slice ?? (onlyMethod === null ? undefined : result.byMethod[onlyMethod]));
  if (stats === undefined) return null;
  const fromSlice = selectorKey !== '' && slice !== undefined;
  return {
    requests: stats.requests,
    rps: stats.rps,
    outcomes: stats.outcomes,
    latencyMs: (source, stat) => {
      const percentiles = source === 'scheduleLagMs' ? (stats.scheduleLagMs ?? null) : stats[source];
      if (percentiles === null) return null;
      if (stat === 'max' || stat === 'mean') return percentiles[stat];
      const q = percentileOf(stat)!;
      const key = percentileKey(q);
      if (key !== null) return percentiles[key];
      const histogram = ({ latencyMs: 'latency', serviceTimeMs: 'serviceTime', scheduleLagMs: 'scheduleLag' } as const)[
        source
      ];
      return resultPercentileMs(
        result,
        fromSlice ? { source: histogram, selector: selectorKey } : { source: histogram, method: onlyMethod },
        q,
      );
    },
  };
}
