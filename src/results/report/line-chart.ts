/**
 * A line chart as inline SVG, generated here rather than by a chart library: the report must
 * open with no network and no script. Axes with tick labels and titles, a legend, and one path
 * per series; a null point breaks the line (a second without traffic has no latency).
 */
import { escapeHtml } from './html.ts';
import { linearScale, ticksFromZero, type Tick } from './scale.ts';

export interface ChartSeries {
  /** Trusted text (built by the report, not taken from the result file). */
  readonly name: string;
  readonly color: string;
  /** Dashed: the baseline run when two runs are overlaid. */
  readonly dashed?: boolean;
  readonly points: readonly (readonly [x: number, y: number] | null)[];
}

export interface ChartSpec {
  /** Element id, unique on the page. */
  readonly id: string;
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  /** Custom x ticks (e.g. the spectrum's nines); default: nice ticks from 0. */
  readonly xTicks?: readonly Tick[];
  readonly formatY?: (value: number) => string;
}

const WIDTH = 640;
const PLOT_HEIGHT = 240;
const MARGIN = { left: 70, right: 40, top: 14, bottom: 48 } as const;
const LEGEND_ROW = 22;
const CHAR_PX = 7.2;

function pathData(points: ChartSeries['points'], x: (v: number) => number, y: (v: number) => number): string {
  let d = '';
  let pen = false;
  for (const point of points) {
    if (point === null) {
      pen = false;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${x(point[0]).toFixed(1)} ${y(point[1]).toFixed(1)}`;
    pen = true;
  }
  return d;
}

/** Legend items laid out left to right, wrapping to new rows. */
function legend(series: readonly ChartSeries[], top: number): { svg: string; rows: number } {
  let xPos = MARGIN.left;
  let row = 0;
  const items = series.map((s) => {
    const width = 34 + s.name.length * CHAR_PX + 18;
    if (xPos + width > WIDTH - MARGIN.right && xPos > MARGIN.left) {
      row++;
      xPos = MARGIN.left;
    }
    const y = top + row * LEGEND_ROW;
    const item =
      `<g class="legend-item"><line x1="${xPos}" y1="${y}" x2="${xPos + 26}" y2="${y}" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>` +
      `<text x="${xPos + 32}" y="${y + 4}">${escapeHtml(s.name)}</text></g>`;
    xPos += width;
    return item;
  });
  return { svg: `<g class="legend">${items.join('')}</g>`, rows: row + 1 };
}

export function renderLineChart(spec: ChartSpec): string {
  const all = spec.series.flatMap((s) => s.points.filter((p): p is readonly [number, number] => p !== null));
  const formatY = spec.formatY ?? String;
  const largest = (i: 0 | 1) => all.reduce((max, p) => Math.max(max, p[i]), 0);
  const yTicks = ticksFromZero(largest(1), 5, formatY);
  const xTicks = spec.xTicks ?? ticksFromZero(largest(0), 8);
  const xEnd = xTicks[xTicks.length - 1]!.value;
  const yEnd = yTicks[yTicks.length - 1]!.value;
  const plotBottom = MARGIN.top + PLOT_HEIGHT;
  const x = linearScale([xTicks[0]!.value, xEnd], [MARGIN.left, WIDTH - MARGIN.right]);
  const y = linearScale([0, yEnd], [plotBottom, MARGIN.top]);
  const grid = yTicks
    .map((t) => `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(t.value).toFixed(1)}" y2="${y(t.value).toFixed(1)}"/><text class="tick" x="${MARGIN.left - 8}" y="${(y(t.value) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(t.label)}</text>`)
    .join('');
  const xAxisTicks = xTicks
    .map((t) => `<line class="axis" x1="${x(t.value).toFixed(1)}" x2="${x(t.value).toFixed(1)}" y1="${plotBottom}" y2="${plotBottom + 5}"/><text class="tick" x="${x(t.value).toFixed(1)}" y="${plotBottom + 18}" text-anchor="middle">${escapeHtml(t.label)}</text>`)
    .join('');
  const paths = spec.series
    .map((s) => `<path class="series" data-series="${escapeHtml(s.name)}" d="${pathData(s.points, x, y)}" stroke="${s.color}"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`)
    .join('');
  const { svg: legendSvg, rows } = legend(spec.series, plotBottom + MARGIN.bottom + 6);
  const height = plotBottom + MARGIN.bottom + rows * LEGEND_ROW + 6;
  const empty = all.length === 0 ? `<text class="empty" x="${WIDTH / 2}" y="${MARGIN.top + PLOT_HEIGHT / 2}" text-anchor="middle">no data</text>` : '';
  return (
    `<figure class="chart" id="${spec.id}"><figcaption>${escapeHtml(spec.title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeHtml(spec.title)}">` +
    `<g class="grid-lines">${grid}</g>` +
    `<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${plotBottom}" y2="${plotBottom}"/>` +
    `<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${plotBottom}"/>` +
    `<g class="x-ticks">${xAxisTicks}</g>` +
    `<text class="axis-label" x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${plotBottom + 38}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>` +
    `<text class="axis-label" transform="translate(16 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>` +
    `<g class="plot">${paths}</g>${empty}${legendSvg}</svg></figure>`
  );
}
