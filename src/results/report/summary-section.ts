/** The run summary: identity of the run and its headline figures, side by side with a baseline. */
import { formatDurationMs } from '../../util/duration.ts';
import { outcomeShare } from '../compare/metrics.ts';
import type { RunResult } from '../../contract/result-schema.ts';
import type { LabelledResult } from '../compare/compare-runs.ts';
import { connectionsLine } from '../summary-table.ts';
import { code, count, ms, percent, text, withBaseline } from './html.ts';

/**
 * The run's status, coloured by its verdict rather than by whether it ran to the end: a completed
 * run with failed checks or thresholds is not shown green.
 */
function statusCell(r: RunResult): string {
  const failedChecks = r.checks.filter((c) => c.verdict === 'fail').length;
  const failedThresholds = r.thresholds.filter((t) => !t.ok).length;
  const verdicts = [
    ...(failedChecks > 0 ? [`${failedChecks} check${failedChecks === 1 ? '' : 's'} failed`] : []),
    ...(failedThresholds > 0 ? [`${failedThresholds} threshold${failedThresholds === 1 ? '' : 's'} failed`] : []),
  ];
  const cls = r.run.status === 'completed' && verdicts.length > 0 ? 'failed' : r.run.status;
  const stop = r.run.stop;
  const stopped = stop === undefined ? '' : ` — stopped at ${(stop.atMs / 1000).toFixed(1)} s: the abortOnFail threshold ${code(stop.threshold)} failed`;
  const failure = `${r.run.failure ? ` — ${text(r.run.failure)}` : ''}${stopped}`;
  return `<span class="status-${text(cls)}">${text(r.run.status)}${verdicts.length > 0 ? `, ${verdicts.join(', ')}` : ''}</span>${failure}`;
}

/** Successes within the SLO's latency bound, per second: what the load achieved that counted. */
function goodputCell(r: RunResult): string {
  const goodput = r.summary.goodput;
  if (goodput === undefined) return 'not recorded';
  const bound = goodput.latencyBoundMs === null ? 'succeeded' : `within ${goodput.latencyBoundMs} ms`;
  return `${goodput.perS.toFixed(1)}/s (${count(goodput.requests)} ${bound})`;
}

/** Load figures: left out of a run that sent no API requests (a verify run). */
const LOAD_FIELDS = new Set(['Connections', 'Requests', 'Throughput', 'Goodput', 'Latency p50', 'Latency p99', 'Latency p99.9', 'Service time p99', 'Errors', '429 rate limited', 'Schedule lag p99']);

const FIELDS: readonly (readonly [label: string, value: (r: RunResult) => string])[] = [
  ['Profile', (r) => text(r.run.profile)],
  ['Run', (r) => `${text(r.run.id)} · ${text(r.run.kind)}${r.run.shards > 1 ? ` · ${r.run.shards} shards` : ''}`],
  ['Status', (r) => statusCell(r)],
  ['Target', (r) => `${text(r.run.target)}${r.run.embeddedTarget ? ' (embedded)' : ''}`],
  ['Model', (r) => `${text(r.run.model)}, ${r.run.workers} worker${r.run.workers === 1 ? '' : 's'}`],
  ['Started', (r) => text(r.run.startedAt)],
  ['Duration', (r) => formatDurationMs(r.summary.durationS * 1000)],
  ['Requests', (r) => count(r.summary.requests)],
  ['Throughput', (r) => `${r.summary.rps.toFixed(1)}/s`],
  ['Goodput', (r) => goodputCell(r)],
  ['Latency p50', (r) => ms(r.summary.latencyMs.p50)],
  ['Latency p99', (r) => ms(r.summary.latencyMs.p99)],
  ['Latency p99.9', (r) => ms(r.summary.latencyMs.p999)],
  ['Service time p99', (r) => ms(r.summary.serviceTimeMs.p99)],
  ['Errors', (r) => percent(outcomeShare(r.summary, 'error'))],
  ['429 rate limited', (r) => percent(outcomeShare(r.summary, 'rate_limited'))],
  ['Schedule lag p99', (r) => (r.summary.scheduleLagMs ? ms(r.summary.scheduleLagMs.p99) : 'n/a (closed model)')],
  ['Token requests', (r) => `${count(r.summary.tokens.requests)} (${count(r.summary.tokens.failures)} failed)`],
  ['Connections', (r) => (r.summary.connections === undefined ? 'not counted' : text(connectionsLine(r.summary.connections)))],
  ['Tool', (r) => `${r.tool.name} ${text(r.tool.version)} · node ${text(r.run.node)}`],
];

export function summarySection(run: LabelledResult, baseline?: LabelledResult): string {
  const noLoad = run.result.summary.requests === 0 && (baseline?.result.summary.requests ?? 0) === 0;
  const items = FIELDS.filter(([label]) => !(noLoad && LOAD_FIELDS.has(label))).map(
    ([label, value]) => `<div><dt>${label}</dt><dd>${withBaseline(value(run.result), baseline ? value(baseline.result) : undefined)}</dd></div>`,
  );
  const legend = baseline ? `<p class="note">Grey values under each figure are the baseline, <code>${text(baseline.label)}</code>.</p>` : '';
  return `<section id="summary"><h2>Run summary</h2>${legend}<dl class="summary">${items.join('')}</dl></section>`;
}
