/**
 * The two charts over time. Throughput: one column chart per class (success, 429, errors), each on
 * its own scale with its current rate beside it, so a trickle of errors stays visible next to
 * thousands of successes and the series stay apart without colour. Latency: p50 and p99 per
 * second as braille lines on one scale (p99 is the upper line). Both show complete seconds only:
 * the current second is still filling and would always look like a dip.
 */
import type { TimelineRow } from '../../contract/result-schema.ts';
import { padStart } from '../text/cell-text.ts';
import { brailleChart } from '../text/braille-chart.ts';
import { formatMs, formatRate, niceCeiling } from '../text/format.ts';
import { columnChart } from '../text/sparkline.ts';
import { seg, type Style, type StyledLine } from '../text/styled.ts';
import type { RunFrameModel } from './run-model.ts';

/** Complete seconds of the snapshot's timeline (the partial current second dropped). */
export function completeSeconds(model: RunFrameModel): readonly TimelineRow[] {
  const nowS = Math.floor(model.snapshot.elapsedMs / 1000);
  return model.snapshot.timeline.filter((row) => row.t < nowS);
}

/** Seconds per chart column so a chart covers at least a minute: 1 when it is ≥ 60 columns wide. */
export function secondsPerColumn(columns: number): number {
  return columns <= 0 ? 1 : Math.max(1, Math.ceil(60 / columns));
}

/** Average `values` in buckets of `size`, aligned to the right end (the newest bucket is complete). */
export function bucketAverages(values: readonly number[], size: number): number[] {
  if (size <= 1) return [...values];
  const out: number[] = [];
  for (let end = values.length; end > 0; end -= size) {
    const bucket = values.slice(Math.max(0, end - size), end);
    out.unshift(bucket.reduce((a, b) => a + b, 0) / bucket.length);
  }
  return out;
}

const SERIES: readonly {
  readonly label: string;
  readonly style: Style;
  readonly pick: (row: TimelineRow) => number;
}[] = [
  { label: 'ok', style: 'ok', pick: (row) => row.success },
  { label: '429', style: 'warn', pick: (row) => row.rateLimited },
  { label: 'err', style: 'bad', pick: (row) => row.errors },
];
const SERIES_LABEL = 10;

/** Rows per series: success gets the most; with fewer than 3 rows only success is charted. */
export function seriesRows(height: number): readonly number[] {
  if (height < 3) return [Math.max(0, height), 0, 0];
  const small = Math.max(1, Math.floor(height / 4));
  return [height - 2 * small, small, small];
}

export function throughputTitle(model: RunFrameModel, width: number): StyledLine {
  const span = Math.min(
    completeSeconds(model).length,
    Math.max(0, width - SERIES_LABEL) * secondsPerColumn(width - SERIES_LABEL),
  );
  return [seg('throughput req/s'), seg(` · last ${span}s`, 'dim')];
}

export function throughputLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const rows = completeSeconds(model);
  const chartWidth = Math.max(0, width - SERIES_LABEL);
  const perColumn = secondsPerColumn(chartWidth);
  const heights = seriesRows(height);
  const lines: StyledLine[] = [];
  SERIES.forEach((series, i) => {
    const seriesHeight = heights[i]!;
    if (seriesHeight === 0) return;
    const values = bucketAverages(rows.map(series.pick), perColumn);
    // With several seconds per column, "now" is the newest column, so label and chart agree.
    const now = values[values.length - 1] ?? 0;
    const peak = Math.max(0, ...values);
    columnChart(values, { width: chartWidth, rows: seriesHeight }).forEach((chart, row) => {
      // First row: name and the latest second's rate; second row (when there is one): the scale.
      const label =
        row === 0
          ? `${series.label.padEnd(3)}${padStart(formatRate(now), 6)}`
          : row === 1
            ? padStart(`↑${formatRate(peak)}`, 9)
            : '';
      lines.push([seg(label.padEnd(SERIES_LABEL), row === 0 ? series.style : 'dim'), seg(chart, series.style)]);
    });
  });
  return lines;
}

const AXIS = 6;

export function latencyChartTitle(model: RunFrameModel, width: number): StyledLine {
  const span = Math.min(completeSeconds(model).length, Math.max(0, width - AXIS) * 2);
  return [seg('latency ms '), seg('p50', 'ok'), seg(' / '), seg('p99', 'warn'), seg(` · last ${span}s`, 'dim')];
}

export function latencyChartLines(model: RunFrameModel, width: number, height: number): StyledLine[] {
  const rows = completeSeconds(model);
  const chartWidth = Math.max(0, width - AXIS);
  const shown = rows.slice(-chartWidth * 2);
  // A second without completions has no latency: a gap, not a zero.
  const p50 = shown.map((row) => (row.requests > 0 ? row.p50 : null));
  const p99 = shown.map((row) => (row.requests > 0 ? row.p99 : null));
  const max = niceCeiling(Math.max(0, ...p99.map((v) => v ?? 0)));
  const chart = brailleChart([p50, p99], { width: chartWidth, height, max });
  const styles: readonly Style[] = ['ok', 'warn'];
  return chart.rows.map((text, row) => {
    const axis = row === 0 ? formatMs(max) : row === height - 1 ? '0' : '';
    const line = [seg(padStart(axis, AXIS - 1), 'dim'), seg(axis === '' ? '│' : '┤', 'dim')];
    // Colour each cell by the series drawn in it, merging runs of one colour.
    const owners = chart.owners[row]!;
    let start = 0;
    for (let col = 1; col <= text.length; col++) {
      if (col === text.length || owners[col] !== owners[start]) {
        const owner = owners[start]!;
        line.push(seg(text.slice(start, col), owner < 0 ? null : styles[owner]!));
        start = col;
      }
    }
    return line;
  });
}
