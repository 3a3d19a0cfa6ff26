/**
 * The terminal summary of a capacity result: the answer in one line first, then one row per step
 * (load, offered and achieved rate, percentiles, error and 429 shares, schedule lag, verdict and
 * the SLO line that decided it), the USL fit of a closed-model search, and the result's warnings.
 */
import type { CapacityRecord, CapacityStep } from '../contract/capacity-schema.ts';
import type { RunResult } from '../contract/result-schema.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { paint } from '../util/terminal-style.ts';
import { formatMs, renderTable } from './text-table.ts';

const safe = (text: string, max = 200): string => sanitizeText(text, max);

/** "capacity 290/s …": the answer line, coloured by whether it can be trusted as it stands. */
export function capacityAnswerLine(record: CapacityRecord, color: boolean): string {
  const ok = record.ratePerS !== null && record.confirmation?.passed !== false;
  return paint(safe(record.finding, 400), ok ? (record.atLeast ? 'warn' : 'ok') : 'bad', color);
}

const percent = (share: number): string => (share === 0 ? '0%' : `${(share * 100).toFixed(share < 0.01 ? 2 : 1)}%`);

/**
 * What a capacity search's loads count and how one reads: a rate ("40/s"), virtual users ("8"), or
 * a speed of the recording ("2.5×", capacity --replay).
 */
export function loadColumn(record: Pick<CapacityRecord, 'model' | 'speed'>): { readonly header: string; show(load: number): string } {
  if (record.speed !== undefined) return { header: 'speed', show: (load) => `${load}×` };
  if (record.model === 'open') return { header: 'rate', show: (load) => `${load}/s` };
  return { header: 'users', show: (load) => `${load}` };
}

/** One row per step. */
export function capacityStepRows(record: Pick<CapacityRecord, 'model' | 'speed' | 'steps'>): string[] {
  const load = loadColumn(record);
  const rows = record.steps.map((s: CapacityStep) => [
    `${s.kind === 'confirm' ? 'confirm' : 'step'} ${s.index}`,
    load.show(s.load),
    s.offeredPerS.toFixed(1),
    s.achievedPerS.toFixed(1),
    formatMs(s.latencyMs.p50),
    formatMs(s.latencyMs.p99),
    percent(s.errorRate),
    percent(s.rateLimitedRate),
    s.scheduleLagMs === null ? '–' : formatMs(s.scheduleLagMs.p99),
    (s.verdict === 'pass' ? '✓ pass' : s.verdict === 'fail' ? `✗ ${safe(s.decidedBy ?? 'fail', 60)}` : `! generator-bound`) +
      (s.retried === true ? ' (retried)' : ''),
  ]);
  const right = (header: string) => ({ header, align: 'right' as const });
  return renderTable(
    [
      { header: '', align: 'left' },
      right(load.header),
      right('offered/s'),
      right('achieved/s'),
      right('p50 ms'),
      right('p99 ms'),
      right('errors'),
      right('429'),
      right('lag p99'),
      { header: 'verdict', align: 'left' },
    ],
    rows,
  );
}

export function renderCapacitySummary(result: RunResult, path: string, options: { readonly color: boolean }): string {
  const record = result.capacity;
  if (record === undefined) return `${result.run.kind} result without a capacity record: ${path}`;
  const { run } = result;
  const lines = [
    capacityAnswerLine(record, options.color),
    '',
    `rpcload capacity  ${safe(run.profile, 60)}${run.label === undefined ? '' : `  [${safe(run.label, 60)}]`}  ${run.status}  ${result.summary.durationS.toFixed(1)} s  ${safe(run.target, 100)}${run.embeddedTarget ? ' (embedded)' : ''}`,
    `SLO: ${record.slo.map((l) => safe(l, 80)).join(' · ')}`,
    '',
    ...capacityStepRows(record),
  ];
  if (record.usl) {
    const u = record.usl;
    lines.push(
      '',
      `USL fit: σ ${u.sigma} (contention), κ ${u.kappa} (coherency), λ ${u.lambda}/s per user; ` +
        (u.peakConcurrency === null ? 'no peak (κ = 0)' : `peak ${u.peakThroughputPerS}/s at ${u.peakConcurrency} users`) +
        `; fit error ${(u.rmsRelativeError * 100).toFixed(1)}% over ${u.points} points`,
    );
  }
  for (const warning of result.warnings) lines.push(paint(`! ${safe(warning, 240)}`, 'warn', options.color));
  lines.push('', `result file: ${path}`);
  return lines.join('\n');
}

/** Markdown for a CI job summary: the answer, then the steps as a table. */
export function renderCapacityMarkdown(result: RunResult, path: string): string {
  const record = result.capacity;
  if (record === undefined) return '';
  const ok = record.ratePerS !== null && record.confirmation?.passed !== false;
  const cell = (text: string): string => safe(text, 120).replace(/[|`<>]/g, (c) => (c === '|' ? '\\|' : c === '`' ? "'" : c === '<' ? '&lt;' : '&gt;'));
  const label = result.run.label === undefined ? '' : ` (${cell(result.run.label)})`;
  const load = loadColumn(record);
  return [
    `### rpcload capacity${label}: ${ok ? (record.atLeast ? '🟡' : '🟢') : '🔴'} ${cell(record.finding)}`,
    '',
    `SLO: ${record.slo.map(cell).join(' · ')} — result file \`${cell(path)}\``,
    '',
    `| step | ${load.header} | offered/s | achieved/s | p50 ms | p99 ms | errors | 429 | verdict |`,
    '|---|--:|--:|--:|--:|--:|--:|--:|---|',
    ...record.steps.map(
      (s) =>
        `| ${s.kind} ${s.index} | ${load.show(s.load)} | ${s.offeredPerS} | ${s.achievedPerS} | ${formatMs(s.latencyMs.p50)} | ${formatMs(s.latencyMs.p99)} | ${percent(s.errorRate)} | ${percent(s.rateLimitedRate)} | ${s.verdict === 'pass' ? '✓' : s.verdict === 'fail' ? `✗ ${cell(s.decidedBy ?? '')}` : '! generator-bound'} |`,
    ),
    '',
  ].join('\n');
}
