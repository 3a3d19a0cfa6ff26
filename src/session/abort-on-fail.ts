/**
 * Thresholds that stop the run when they fail (`abortOnFail`): judged while the run goes, on the
 * live figures of their selection, once a second from their `delayAbortEval` on. The first to fail
 * stops the load at once (no new arrivals; requests in flight get the usual grace); the run then
 * ends `aborted`, with `run.stop` saying which threshold and when, and exits 1. A threshold whose
 * selection has no request yet has nothing to fail on.
 */
import type { RunStop } from '../contract/result-schema.ts';
import type { RunClock } from '../driver/run-clock.ts';
import { decodeHistogram, usToMs, valuesAtPercentilesUs, percentilesMs, type Histogram } from '../metrics/hdr.ts';
import type { SelectionData } from '../metrics/recorded-data.ts';
import { percentileOf } from '../metrics/percentile-names.ts';
import { judgeThreshold, type ParsedThreshold, type ThresholdFigures } from '../profile/thresholds.ts';
import type { RunningLoad } from './load.ts';

/** How often the clock is looked at; each threshold is judged at most once a second. */
const TICK_MS = 250;
const JUDGE_EVERY_MS = 1000;

/** The figures of a live selection `elapsedS` into the run. */
export function liveFigures(data: SelectionData, elapsedS: number): ThresholdFigures {
  const requests = Object.values(data.outcomes).reduce((sum, n) => sum + n, 0);
  const histograms = new Map<string, Histogram | null>();
  const histogram = (source: 'latencyMs' | 'serviceTimeMs' | 'scheduleLagMs'): Histogram | null => {
    if (!histograms.has(source)) {
      const encoded =
        source === 'latencyMs' ? data.latency : source === 'serviceTimeMs' ? data.serviceTime : data.scheduleLag;
      histograms.set(source, encoded === undefined ? null : decodeHistogram(encoded));
    }
    return histograms.get(source)!;
  };
  return {
    requests,
    rps: elapsedS > 0 ? requests / elapsedS : 0,
    outcomes: data.outcomes,
    latencyMs: (source, stat) => {
      const h = histogram(source);
      if (h === null || h.totalCount === 0) return null;
      if (stat === 'max' || stat === 'mean') return percentilesMs(h)[stat];
      return usToMs(valuesAtPercentilesUs(h, [percentileOf(stat)!]).valuesUs[0]!);
    },
  };
}

/** The first failing threshold of `due` on `data`, or null. */
export function firstFailing(
  due: readonly ParsedThreshold[],
  data: Readonly<Record<string, SelectionData>>,
  elapsedS: number,
): ParsedThreshold | null {
  for (const threshold of due) {
    const slice = data[threshold.selectorKey];
    if (slice === undefined) continue;
    const verdict = judgeThreshold(threshold, liveFigures(slice, elapsedS));
    if (verdict.actual !== null && !verdict.ok) return threshold;
  }
  return null;
}

/**
 * Watch the load's abortOnFail thresholds; `onFail` is told once, with the stop record, when one
 * fails. Returns a function that stops watching.
 */
export function watchAbortOnFail(
  thresholds: readonly ParsedThreshold[],
  load: { readonly clock: Pick<RunClock, 'started' | 'now'>; readonly selections: RunningLoad['selections'] },
  onFail: (stop: RunStop) => void,
): () => void {
  const live = thresholds.filter((t) => t.abortOnFail);
  if (live.length === 0) return () => undefined;
  let lastJudgedMs = Number.NEGATIVE_INFINITY;
  let busy = false;
  let done = false;
  const tick = async (): Promise<void> => {
    if (done || busy || !load.clock.started) return;
    const nowMs = load.clock.now();
    const due = live.filter((t) => nowMs >= t.delayAbortEvalMs);
    // Judged as soon as the first delay is over, then once a second.
    if (due.length === 0 || nowMs - lastJudgedMs < JUDGE_EVERY_MS) return;
    busy = true;
    try {
      const data = await load.selections();
      lastJudgedMs = nowMs;
      const failed = done ? null : firstFailing(due, data, nowMs / 1000);
      if (failed !== null) {
        done = true;
        clearInterval(timer);
        onFail({ reason: 'threshold', threshold: failed.expr, atMs: Math.round(nowMs * 1000) / 1000 });
      }
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void tick(), TICK_MS);
  timer.unref();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
