/**
 * The report's three charts. With a baseline, both runs are drawn on the same axes (time since
 * each run's start): the run solid, the baseline dashed in the same colours.
 */
import { decodeHistogramAt } from '../../result-file/histograms.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { mergeTimelines } from '../merge/merge-timeline.ts';
import type { TimelineRow } from '../../contract/result-schema.ts';
import { renderLineChart, type ChartSeries } from './line-chart.ts';
import { MAX_NINES, ninesTicks, spectrumPoints } from './spectrum.ts';

export const COLORS = {
  success: '#2e7d32',
  rateLimited: '#e69500',
  errors: '#c62828',
  p50: '#1565c0',
  p99: '#8e24aa',
  serviceTime: '#00897b',
} as const;

interface Overlay {
  readonly run: LabelledResult;
  readonly baseline: boolean;
}

const overlays = (run: LabelledResult, baseline: LabelledResult | undefined): Overlay[] => [
  { run, baseline: false },
  ...(baseline ? [{ run: baseline, baseline: true }] : []),
];

const seriesName = (name: string, o: Overlay): string => (o.baseline ? `${name} (baseline)` : name);

/** At most this many points per line: a week-long run has 604,800 seconds, a chart needs ~1,000. */
export const MAX_CHART_POINTS = 1200;

/**
 * The timeline as the charts draw it: when longer than MAX_CHART_POINTS seconds, in buckets of
 * k seconds, combined as merge combines shards' seconds (p50 request-weighted, p99 the largest),
 * counts divided by k so they stay per second, t the bucket's first second.
 */
export function chartTimeline(rows: readonly TimelineRow[], durationS?: number): readonly TimelineRow[] {
  if (durationS !== undefined) rows = withoutPartialEnd(rows, durationS);
  const bucketS = Math.ceil(rows.length / MAX_CHART_POINTS);
  if (bucketS <= 1) return rows;
  const buckets = mergeTimelines([{ offsetS: 0, rows: rows.map((row) => ({ ...row, t: Math.floor(row.t / bucketS) })) }]);
  return buckets.map((b) => ({ ...b, t: b.t * bucketS, requests: b.requests / bucketS, success: b.success / bucketS, rateLimited: b.rateLimited / bucketS, errors: b.errors / bucketS }));
}

/** Below this share of a second, a last partial second says too little to draw. */
const MIN_PARTIAL_S = 0.25;

/**
 * The run's last second is usually partial (a run of 30.3 s ends 0.3 s into second 30): its
 * counts are scaled to per-second rates, so the chart does not drop towards 0 at the end; a
 * sliver under MIN_PARTIAL_S is left out.
 */
export function withoutPartialEnd(rows: readonly TimelineRow[], durationS: number): readonly TimelineRow[] {
  const last = rows[rows.length - 1];
  if (last === undefined) return rows;
  const coveredS = durationS - last.t;
  if (coveredS >= 1 || coveredS <= 0) return rows;
  if (coveredS < MIN_PARTIAL_S) return rows.length > 1 ? rows.slice(0, -1) : rows;
  const perS = (n: number): number => n / coveredS;
  return [...rows.slice(0, -1), { ...last, requests: perS(last.requests), success: perS(last.success), rateLimited: perS(last.rateLimited), errors: perS(last.errors) }];
}

function timelineSeries(o: Overlay, name: string, color: string, value: (row: TimelineRow) => number | null): ChartSeries {
  return {
    name: seriesName(name, o),
    color,
    dashed: o.baseline,
    points: chartTimeline(o.run.result.timeline, o.run.result.summary.durationS).map((row) => {
      const v = value(row);
      return v === null ? null : ([row.t, v] as const);
    }),
  };
}

export function throughputChart(run: LabelledResult, baseline?: LabelledResult): string {
  return renderLineChart({
    id: 'chart-throughput',
    title: 'Throughput over time',
    xLabel: 'seconds since start',
    yLabel: 'requests per second',
    series: overlays(run, baseline).flatMap((o) => [
      timelineSeries(o, 'success', COLORS.success, (row) => row.success),
      timelineSeries(o, '429 rate limited', COLORS.rateLimited, (row) => row.rateLimited),
      timelineSeries(o, 'errors', COLORS.errors, (row) => row.errors),
    ]),
  });
}

// A second without requests has no latency: the line breaks there instead of dropping to 0.
const busy = (pick: (row: TimelineRow) => number) => (row: TimelineRow) => (row.requests > 0 ? pick(row) : null);

/** p50 on its own axis: drawn under a p99 ten or a hundred times larger, it would be a flat line at 0. */
export function medianLatencyChart(run: LabelledResult, baseline?: LabelledResult): string {
  return renderLineChart({
    id: 'chart-latency-p50',
    title: 'Median latency over time (p50 per second)',
    xLabel: 'seconds since start',
    yLabel: 'latency (ms)',
    series: overlays(run, baseline).map((o) => timelineSeries(o, 'p50', COLORS.p50, busy((row) => row.p50))),
  });
}

export function latencyChart(run: LabelledResult, baseline?: LabelledResult): string {
  return renderLineChart({
    id: 'chart-latency',
    title: 'Tail latency over time (p99 per second)',
    xLabel: 'seconds since start',
    yLabel: 'latency (ms)',
    series: overlays(run, baseline).map((o) => timelineSeries(o, 'p99', COLORS.p99, busy((row) => row.p99))),
  });
}

export function spectrumChart(run: LabelledResult, baseline?: LabelledResult): string {
  // Service time first, so the latency line (the headline figure) is drawn on top where they meet.
  const series = overlays(run, baseline).flatMap((o) =>
    (['serviceTime', 'latency'] as const).map((kind) => ({
      name: seriesName(kind === 'latency' ? 'latency' : 'service time', o),
      color: kind === 'latency' ? COLORS.p50 : COLORS.serviceTime,
      dashed: o.baseline,
      points: spectrumPoints(decodeHistogramAt(o.run.result.histograms[kind], `${o.run.label}: histograms.${kind}`)),
    })),
  );
  return renderLineChart({
    id: 'chart-spectrum',
    title: `Latency by percentile (HDR spectrum, log scale to ${MAX_NINES} nines)`,
    xLabel: 'percentile',
    yLabel: 'latency (ms)',
    xTicks: ninesTicks(),
    series,
  });
}
