/**
 * The report's knee, for a capacity result: latency percentiles and the achieved rate against the
 * offered rate (or virtual users) of every search step, with the SLO's latency line, the bracket
 * [last pass, first fail] as two vertical lines and the answer, and the steps as a table.
 */
import type { CapacityRecord, CapacityStep } from '../../contract/capacity-schema.ts';
import { parseThreshold } from '../../profile/thresholds.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { loadColumn } from '../capacity-summary.ts';
import { COLORS } from './charts.ts';
import { text } from './html.ts';
import { renderLineChart, type ChartSeries } from './line-chart.ts';

/** The overall latency SLO lines (ms) among the record's SLO lines. */
function latencyLimits(record: CapacityRecord): { readonly name: string; readonly ms: number }[] {
  return record.slo.flatMap((line) => {
    try {
      const t = parseThreshold(line);
      if (t.metric.kind !== 'latency' || t.metric.source !== 'latencyMs' || t.method !== null) return [];
      return [{ name: `SLO ${t.expr}`, ms: t.unit === 's' ? t.limit * 1000 : t.limit }];
    } catch {
      return [];
    }
  });
}

/** A vertical line at x from 0 to top. */
const vertical = (name: string, color: string, x: number, top: number): ChartSeries => ({
  name,
  color,
  dashed: true,
  points: [
    [x, 0],
    [x, top],
  ],
});

function knee(record: CapacityRecord): string {
  const steps = record.steps.filter((s) => s.kind === 'search' && s.retried !== true).sort((a, b) => a.load - b.load);
  if (steps.length === 0) return '';
  const limits = latencyLimits(record);
  // Far past the knee latency explodes; clip so the SLO line and the bend stay readable.
  const clip = limits.length > 0 ? Math.max(...limits.map((l) => l.ms)) * 4 : Number.POSITIVE_INFINITY;
  const at = (pick: (s: CapacityStep) => number) => steps.map((s) => [s.load, Math.min(pick(s), clip)] as const);
  const p99Top = Math.max(...at((s) => s.latencyMs.p99).map((p) => p[1]), ...limits.map((l) => l.ms));
  const xMax = steps.at(-1)!.load;
  const [lastPass, firstFail] = record.bracket;
  const bracketLines = (top: number): ChartSeries[] => [
    ...(lastPass === null ? [] : [vertical(`last pass ${lastPass}`, COLORS.success, lastPass, top)]),
    ...(firstFail === null ? [] : [vertical(`first fail ${firstFail}`, COLORS.errors, firstFail, top)]),
  ];
  const replay = record.speed !== undefined;
  const unit = replay ? 'speed of the recording (×)' : record.model === 'open' ? 'offered rate (per second)' : 'virtual users';
  const against = replay ? 'speed' : record.model === 'open' ? 'offered rate' : 'concurrency';
  const latency = renderLineChart({
    id: 'chart-knee-latency',
    title: `Latency against ${against}${Number.isFinite(clip) ? ` (clipped at ${clip} ms)` : ''}`,
    xLabel: unit,
    yLabel: 'latency (ms)',
    series: [
      { name: 'p50', color: COLORS.p50, points: at((s) => s.latencyMs.p50) },
      { name: 'p90', color: COLORS.serviceTime, points: at((s) => s.latencyMs.p90) },
      { name: 'p99', color: COLORS.p99, points: at((s) => s.latencyMs.p99) },
      ...limits.map((l) => ({
        name: l.name,
        color: COLORS.rateLimited,
        dashed: true,
        points: [
          [0, l.ms],
          [xMax, l.ms],
        ] as const,
      })),
      ...bracketLines(p99Top),
    ],
  });
  const achievedTop = Math.max(replay ? 0 : xMax, ...steps.map((s) => Math.max(s.achievedPerS, replay ? s.offeredPerS : 0)));
  const throughput = renderLineChart({
    id: 'chart-knee-throughput',
    title: `Achieved rate against ${against}`,
    xLabel: unit,
    yLabel: 'achieved (per second)',
    series: [
      { name: 'achieved', color: COLORS.success, points: steps.map((s) => [s.load, s.achievedPerS] as const) },
      // A replay's speed is not a rate: the calls per second it offers are drawn beside what was achieved.
      ...(replay ? [{ name: 'offered', color: '#757575', dashed: true, points: steps.map((s) => [s.load, s.offeredPerS] as const) }] : []),
      ...(record.model === 'open' && !replay
        ? [
            {
              name: 'achieved = offered',
              color: '#757575',
              dashed: true,
              points: [
                [0, 0],
                [xMax, xMax],
              ] as const,
            },
          ]
        : []),
      ...bracketLines(achievedTop),
    ],
  });
  return `${latency}\n${throughput}`;
}

export function capacitySection(run: LabelledResult): string {
  const record = run.result.capacity;
  if (record === undefined) return '';
  const load = loadColumn(record);
  const rows = record.steps
    .map(
      (s) =>
        `<tr><td>${s.kind} ${s.index}</td><td>${load.show(s.load)}</td><td>${s.offeredPerS}</td><td>${s.achievedPerS}</td><td>${s.latencyMs.p50}</td><td>${s.latencyMs.p99}</td><td>${(s.errorRate * 100).toFixed(2)}%</td><td>${(s.rateLimitedRate * 100).toFixed(2)}%</td><td>${s.scheduleLagMs === null ? '–' : s.scheduleLagMs.p99}</td><td>${text(s.verdict)}${s.decidedBy === null ? '' : `: ${text(s.decidedBy)}`}${s.retried === true ? ' (retried)' : ''}</td></tr>`,
    )
    .join('\n');
  const usl = record.usl
    ? `<p>Universal Scalability Law fit: σ ${record.usl.sigma}, κ ${record.usl.kappa}, λ ${record.usl.lambda}/s; ${
        record.usl.peakConcurrency === null ? 'no peak' : `peak ${record.usl.peakThroughputPerS}/s at ${record.usl.peakConcurrency} users`
      }; fit error ${(record.usl.rmsRelativeError * 100).toFixed(1)}% over ${record.usl.points} points.</p>`
    : '';
  return `<section id="capacity"><h2>Capacity</h2>
<p class="answer"><strong>${text(record.finding, 600)}</strong></p>
<p>SLO: ${record.slo.map((l) => text(l)).join(' · ')}</p>
<div class="charts">
${knee(record)}
</div>
${usl}
<table><thead><tr><th>step</th><th>${load.header}</th><th>offered/s</th><th>achieved/s</th><th>p50 ms</th><th>p99 ms</th><th>errors</th><th>429</th><th>lag p99 ms</th><th>verdict</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</section>`;
}
