/**
 * The report's workloads, for a run with several: a section per workload with its figures (kind,
 * clients, requests, achieved rate, goodput, latency, errors, 429s, schedule lag), its phases'
 * offered against achieved rates, a replay's facts, and its charts — the latency spectrum of its
 * own histograms and, with several phases, offered vs achieved phase by phase. With a baseline
 * that has the same workload, its figures and lines are drawn beside (dashed).
 */
import type { WorkloadStats } from '../../contract/result-schema.ts';
import { decodeHistogramAt } from '../../result-file/histograms.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { outcomeShare } from '../compare/metrics.ts';
import { replayFacts } from '../summary-workloads.ts';
import { COLORS } from './charts.ts';
import { renderLineChart, type ChartSeries } from './line-chart.ts';
import { code, count, ms, percent, text, withBaseline } from './html.ts';
import { MAX_NINES, ninesTicks, spectrumPoints } from './spectrum.ts';

const goodputText = (w: WorkloadStats): string => {
  if (w.goodput === undefined) return 'not recorded';
  const bound = w.goodput.latencyBoundMs === null ? 'succeeded' : `within ${w.goodput.latencyBoundMs} ms`;
  return `${w.goodput.perS.toFixed(1)}/s over the run (${count(w.goodput.requests)} ${bound})`;
};

const FIELDS: readonly (readonly [label: string, value: (w: WorkloadStats) => string])[] = [
  ['Load', (w) => `${text(w.kind)}, ${count(w.clients)} client${w.clients === 1 ? '' : 's'}`],
  ['Requests', (w) => count(w.requests)],
  ['Achieved', (w) => `${w.rps.toFixed(1)}/s over the run`],
  ['Goodput', goodputText],
  ['Latency p50', (w) => ms(w.latencyMs.p50)],
  ['Latency p99', (w) => ms(w.latencyMs.p99)],
  ['Latency p99.9', (w) => ms(w.latencyMs.p999)],
  ['Errors', (w) => percent(outcomeShare(w, 'error'))],
  ['429 rate limited', (w) => percent(outcomeShare(w, 'rate_limited'))],
  ['Schedule lag p99', (w) => (w.scheduleLagMs ? ms(w.scheduleLagMs.p99) : 'n/a (closed model)')],
];

const rate = (value: number | null): string => (value === null ? '– (closed model)' : `${value.toFixed(1)}/s`);

function phaseTable(w: WorkloadStats, base: WorkloadStats | undefined): string {
  const basePhase = (name: string) => base?.phases.find((p) => p.name === name);
  const rows = w.phases.map((phase) => {
    const other = basePhase(phase.name);
    const cell = (own: string, theirs: string | undefined) =>
      `<td class="num">${withBaseline(own, base === undefined ? undefined : (theirs ?? '—'))}</td>`;
    return `<tr><th scope="row">${code(phase.name)}</th>${cell(rate(phase.offeredPerS), other && rate(other.offeredPerS))}${cell(
      `${phase.achievedPerS.toFixed(1)}/s`,
      other && `${other.achievedPerS.toFixed(1)}/s`,
    )}${cell(count(phase.requests), other && count(other.requests))}</tr>`;
  });
  const head = '<tr><th scope="col">phase</th><th scope="col" class="num">offered</th><th scope="col" class="num">achieved</th><th scope="col" class="num">requests</th></tr>';
  return `<div class="scroll"><table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table></div>`;
}

interface Side {
  readonly label: string;
  readonly run: LabelledResult;
  readonly baseline: boolean;
}

/** The workload's latency and service time by percentile, from its own histograms. */
function spectrum(id: string, name: string, sides: readonly Side[]): string {
  const series = sides.flatMap((side): ChartSeries[] => {
    const encoded = side.run.result.histograms.byWorkload?.[name];
    if (encoded === undefined) return [];
    return (['serviceTime', 'latency'] as const).map((kind) => ({
      name: `${kind === 'latency' ? 'latency' : 'service time'}${side.baseline ? ' (baseline)' : ''}`,
      color: kind === 'latency' ? COLORS.p50 : COLORS.serviceTime,
      dashed: side.baseline,
      points: spectrumPoints(decodeHistogramAt(encoded[kind], `${side.label}: histograms.byWorkload[${JSON.stringify(name)}].${kind}`)),
    }));
  });
  if (series.length === 0) return '';
  return renderLineChart({
    id,
    title: `Latency by percentile (HDR spectrum, log scale to ${MAX_NINES} nines)`,
    xLabel: 'percentile',
    yLabel: 'latency (ms)',
    xTicks: ninesTicks(),
    series,
  });
}

/** Offered against achieved per second, phase by phase (phase numbers on x): only with several phases. */
function phaseChart(id: string, w: WorkloadStats): string {
  if (w.phases.length < 2) return '';
  const offered = w.phases.map((p, i) => (p.offeredPerS === null ? null : ([i + 1, p.offeredPerS] as const)));
  return renderLineChart({
    id,
    title: 'Offered vs achieved per phase',
    xLabel: 'phase',
    yLabel: 'requests per second',
    series: [
      ...(offered.every((p) => p === null) ? [] : [{ name: 'offered', color: COLORS.p99, dashed: true, points: offered }]),
      { name: 'achieved', color: COLORS.success, points: w.phases.map((p, i) => [i + 1, p.achievedPerS] as const) },
    ],
  });
}

function workloadPart(index: number, name: string, run: LabelledResult, baseline: LabelledResult | undefined): string {
  const w = run.result.byWorkload![name]!;
  const base = baseline?.result.byWorkload?.[name];
  const items = FIELDS.map(
    ([label, value]) =>
      `<div><dt>${label}</dt><dd>${withBaseline(value(w), baseline === undefined ? undefined : base === undefined ? '—' : value(base))}</dd></div>`,
  );
  const replay = w.replay === undefined ? '' : `<p class="note">Replay: ${replayFacts(w.replay).map((line) => text(line, 400)).join('; ')}</p>`;
  const sides: Side[] = [
    { label: run.label, run, baseline: false },
    ...(baseline !== undefined && base !== undefined ? [{ label: baseline.label, run: baseline, baseline: true }] : []),
  ];
  const charts = [spectrum(`chart-workload-${index}-spectrum`, name, sides), phaseChart(`chart-workload-${index}-phases`, w)].filter(Boolean);
  return `<section class="workload" id="workload-${index}"><h3>Workload ${code(name)}</h3>
<dl class="summary">${items.join('')}</dl>
${phaseTable(w, base)}
${replay}
<div class="charts">
${charts.join('\n')}
</div></section>`;
}

/** The section, '' for a run of one workload (the page's own figures and charts are its). */
export function workloadSection(run: LabelledResult, baseline?: LabelledResult): string {
  const names = Object.keys(run.result.byWorkload ?? {});
  if (names.length <= 1) return '';
  const onlyBaseline = Object.keys(baseline?.result.byWorkload ?? {}).filter((name) => !names.includes(name));
  const note =
    onlyBaseline.length === 0 ? '' : `<p class="note">Only in the baseline: ${onlyBaseline.map((name) => code(name)).join(', ')}.</p>`;
  const parts = names.map((name, i) => workloadPart(i + 1, name, run, baseline));
  return `<section id="workloads"><h2>Per workload</h2>${note}
${parts.join('\n')}
</section>`;
}
