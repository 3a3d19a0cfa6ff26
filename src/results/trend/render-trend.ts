/**
 * `rpcload trend` output: a terminal table, GitHub-flavoured markdown for a CI job summary, and a
 * self-contained HTML page (inline CSS and SVG, no script, nothing fetched) with the capacity,
 * latency and error-rate charts over the runs.
 */
import { sanitizeText } from '../../util/sanitize.ts';
import { escapeHtml, text } from '../report/html.ts';
import { renderLineChart } from '../report/line-chart.ts';
import { REPORT_CSP, REPORT_CSS } from '../report/styles.ts';
import { formatMs, renderTable } from '../text-table.ts';
import type { TrendRow, TrendSeries } from './trend-series.ts';
import {
  trendChange as change,
  trendFlagCell as flagCell,
  WORKLOAD_HEADERS,
  workloadCells,
  workloadInOneRunText,
  workloadTrendTable,
} from './render-trend-workloads.ts';

const safe = (value: string, max = 60): string => sanitizeText(value, max);
const capacityCell = (r: TrendRow): string => (r.capacityPerS === null ? '–' : `${r.capacityAtLeast ? '≥' : ''}${r.capacityPerS}/s`);
const msCell = (v: number | null): string => (v === null ? '–' : formatMs(v));
const errorCell = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(2)}%`);

function headline(series: TrendSeries): string {
  const latest = series.rows.at(-1);
  if (latest === undefined) return 'no result files';
  const name = latest.label ?? latest.file;
  const run = `the latest run (${safe(name)})`;
  const median = `the median of the ${latest.history} before it`;
  const better = latest.improvements.map(change).join(', ');
  if (series.latestRegressed) {
    return `${run} is worse than ${median}: ${latest.flags.map(change).join(', ')}${better === '' ? '' : `; better: ${better}`}`;
  }
  if (better !== '') return `${run} is better than ${median}: ${better}`;
  return `${run} is within the noise of the ${latest.history} before it`;
}

export function renderTrendTable(series: TrendSeries): string {
  const rows = series.rows.map((r) => [
    r.startedAt.replace(/\.\d+Z$/, 'Z'),
    safe(r.label ?? '', 30),
    r.kind,
    capacityCell(r),
    msCell(r.p50Ms),
    msCell(r.p99Ms),
    errorCell(r.errorRate),
    flagCell(r),
  ]);
  const right = (header: string) => ({ header, align: 'right' as const });
  const left = (header: string) => ({ header, align: 'left' as const });
  const table = renderTable([left('started'), left('label'), left('kind'), right('capacity'), right('p50 ms'), right('p99 ms'), right('errors'), left('')], rows);
  const workloads = series.workloads === undefined ? [] : ['', ...workloadTrendTable(series.workloads)];
  return [`rpcload trend: ${headline(series)}`, '', ...table, ...workloads, ''].join('\n');
}

const md = (value: string): string => safe(value).replace(/[|`<>]/g, (c) => (c === '|' ? '\\|' : c === '`' ? "'" : c === '<' ? '&lt;' : '&gt;'));

export function renderTrendMarkdown(series: TrendSeries): string {
  const lines = [
    `### rpcload trend: ${series.latestRegressed ? '🔴' : '🟢'} ${md(headline(series))}`,
    '',
    '| started | label | kind | capacity | p50 ms | p99 ms | errors | |',
    '|---|---|---|--:|--:|--:|--:|---|',
    ...series.rows.map(
      (r) =>
        `| ${r.startedAt} | ${md(r.label ?? '')} | ${r.kind} | ${capacityCell(r)} | ${msCell(r.p50Ms)} | ${msCell(r.p99Ms)} | ${errorCell(r.errorRate)} | ${r.flags.length > 0 ? `🔴 ${md(flagCell(r))}` : r.improvements.length > 0 ? `🟢 ${md(flagCell(r))}` : ''} |`,
    ),
    '',
    `Each run is judged against the median of up to ${series.window} runs before it.`,
    '',
    ...workloadMarkdown(series),
  ];
  return lines.join('\n');
}

/** The latest run's workloads as a markdown table, and the workloads in one run only. */
function workloadMarkdown(series: TrendSeries): string[] {
  const trend = series.workloads;
  if (trend === undefined) return [];
  return [
    '#### Per workload (the latest run against the runs before it that had it)',
    '',
    `| ${WORKLOAD_HEADERS.join(' | ')} |`,
    '|---|--:|--:|--:|--:|--:|--:|---|',
    ...trend.rows.map((r) => `| ${workloadCells(r, md(r.name)).join(' | ')} |`),
    '',
    ...trend.inOneRun.map((w) => `- ${workloadInOneRunText(w, md(w.name))}`),
    ...(trend.inOneRun.length > 0 ? [''] : []),
  ];
}

/** The latest run's workloads as an HTML section ('' without several workloads). */
function workloadHtml(series: TrendSeries): string {
  const trend = series.workloads;
  if (trend === undefined) return '';
  const head = WORKLOAD_HEADERS.map((h) => `<th>${text(h)}</th>`).join('');
  const rows = trend.rows
    .map((r) => `<tr${r.flags.length > 0 ? ' class="bad"' : ''}>${workloadCells(r, r.name).map((c) => `<td>${text(c, 400)}</td>`).join('')}</tr>`)
    .join('\n');
  const lines = trend.inOneRun.map((w) => `<p>${text(workloadInOneRunText(w), 400)}</p>`).join('\n');
  return `<section id="workloads"><h2>Per workload (latest run)</h2>
<table><thead><tr>${head}</tr></thead>
<tbody>
${rows}
</tbody></table>
${lines}
</section>`;
}

function chart(id: string, title: string, yLabel: string, series: TrendSeries, read: (r: TrendRow) => number | null, color: string, name: string): string {
  const points = series.rows.map((r, i) => {
    const v = read(r);
    return v === null ? null : ([i + 1, v] as const);
  });
  if (points.every((p) => p === null)) return '';
  return renderLineChart({ id, title, xLabel: 'run (oldest first)', yLabel, series: [{ name, color, points }] });
}

export function renderTrendHtml(series: TrendSeries): string {
  const rows = series.rows
    .map(
      (r, i) =>
        `<tr${r.flags.length > 0 ? ' class="bad"' : ''}><td>${i + 1}</td><td>${text(r.startedAt)}</td><td>${text(r.label ?? '')}</td><td>${text(r.kind)}</td><td>${escapeHtml(capacityCell(r))}</td><td>${msCell(r.p50Ms)}</td><td>${msCell(r.p99Ms)}</td><td>${errorCell(r.errorRate)}</td><td>${text(flagCell(r))}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rpcload trend</title>
<style>${REPORT_CSS} tr.bad td { color: #c62828; font-weight: 600; }</style>
</head>
<body>
<header><h1>rpcload trend</h1><p>${text(headline(series), 400)}</p></header>
<main>
<section id="charts"><h2>Charts</h2><div class="charts">
${chart('trend-capacity', 'Capacity', 'req/s', series, (r) => r.capacityPerS, '#2e7d32', 'capacity')}
${chart('trend-p50', 'p50 latency', 'ms', series, (r) => r.p50Ms, '#1565c0', 'p50')}
${chart('trend-p99', 'p99 latency', 'ms', series, (r) => r.p99Ms, '#8e24aa', 'p99')}
${chart('trend-errors', 'Error rate', '%', series, (r) => (r.errorRate === null ? null : r.errorRate * 100), '#c62828', 'errors')}
</div></section>
<section id="runs"><h2>Runs</h2>
<table><thead><tr><th>#</th><th>started</th><th>label</th><th>kind</th><th>capacity</th><th>p50 ms</th><th>p99 ms</th><th>errors</th><th></th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p>Each run is judged against the median of up to ${series.window} runs before it.</p>
</section>
${workloadHtml(series)}
</main>
<footer>Generated by rpcload. Self-contained: no network access needed.</footer>
</body>
</html>
`;
}
