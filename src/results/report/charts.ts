/**
 * The report's three charts. With a baseline, both runs are drawn on the same axes (time since
 * each run's start): the run solid, the baseline dashed in the same colours.
 */
import { decodeHistogramAt } from '../compare/decode-histogram.ts';
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
export function chartTimeline(rows: readonly TimelineRow[]): readonly TimelineRow[] {
  const bucketS = Math.ceil(rows.length / MAX_CHART_POINTS);
  if (bucketS <= 1) return rows;
  const buckets = mergeTimelines([{ offsetS: 0, rows: rows.map((row) => ({ ...row, t: Math.floor(row.t / bucketS) })) }]);
  return buckets.map((b) => ({ ...b, t: b.t * bucketS, requests: b.requests / bucketS, success: b.success / bucketS, rateLimited: b.rateLimited / bucketS, errors: b.errors / bucketS }));
}

function timelineSeries(o: Overlay, name: string, color: string, value: (row: TimelineRow) => number | null): ChartSeries {
  return {
    name: seriesName(name, o),
    color,
    dashed: o.baseline,
    points: chartTimeline(o.run.result.timeline).map((row) => {
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

export function latencyChart(run: LabelledResult, baseline?: LabelledResult): string {
  // A second without requests has no latency: the line breaks there instead of dropping to 0.
  const busy = (pick: (row: TimelineRow) => number) => (row: TimelineRow) => (row.requests > 0 ? pick(row) : null);
  return renderLineChart({
    id: 'chart-latency',
    title: 'Latency over time (per second)',
    xLabel: 'seconds since start',
    yLabel: 'latency (ms)',
    series: overlays(run, baseline).flatMap((o) => [
      timelineSeries(o, 'p50', COLORS.p50, busy((row) => row.p50)),
      timelineSeries(o, 'p99', COLORS.p99, busy((row) => row.p99)),
    ]),
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
