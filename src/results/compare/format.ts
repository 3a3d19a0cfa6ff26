/** Number formatting shared by the terminal table, markdown and the HTML report. */
import { sanitizeText } from '../../util/sanitize.ts';
import type { Comparison, ComparisonRow } from './compare-runs.ts';
import type { MetricUnit } from './metrics.ts';
import { ROW_VERDICT_ORDER } from './row-verdict.ts';

/** ms with precision that suits the size: 0.412, 12.35, 1234.5. */
export function formatMs(ms: number): string {
  const abs = Math.abs(ms);
  return ms.toFixed(abs < 10 ? 3 : abs < 1000 ? 2 : 1);
}

export function formatValue(unit: MetricUnit, value: number | null): string {
  if (value === null) return '—';
  switch (unit) {
    case 'ms':
      return `${formatMs(value)} ms`;
    case 'per_s':
      return `${value.toFixed(1)}/s`;
    case 'ratio':
      return `${(value * 100).toFixed(2)}%`;
  }
}

/** A magnitude in the metric's unit; ratios move in percentage points. */
function formatAmount(unit: MetricUnit, amount: number): string {
  return unit === 'ratio' ? `${(amount * 100).toFixed(2)}pp` : formatValue(unit, amount);
}

const withSign = (text: string, value: number): string => (value > 0 ? `+${text}` : value < 0 ? `-${text}` : text);

export function formatDelta(unit: MetricUnit, delta: number | null): string {
  return delta === null ? '—' : withSign(formatAmount(unit, Math.abs(delta)), delta);
}

export function formatRelative(relative: number | null, delta: number | null): string {
  if (relative === null) return delta !== null && delta !== 0 ? 'new' : '—';
  return withSign(`${(Math.abs(relative) * 100).toFixed(1)}%`, relative);
}

/** The cells of one row as plain, terminal-safe text (server-chosen names are sanitized). */
export interface RowCells {
  readonly scope: string;
  readonly metric: string;
  readonly base: string;
  readonly head: string;
  readonly delta: string;
  readonly relative: string;
  readonly noise: string;
  readonly verdict: string;
}

export function rowCells(row: ComparisonRow): RowCells {
  const failed = row.failedRules.length > 0 ? ` (${row.failedRules.join(', ')})` : '';
  if (row.type !== 'metric') {
    return {
      scope: row.type,
      metric: sanitizeText(row.name, 60),
      base: row.base ?? '—',
      head: row.head ?? '—',
      delta: '',
      relative: '',
      noise: '',
      verdict: `${row.verdict}${failed}`,
    };
  }
  return {
    scope: row.workload !== undefined ? `workload ${sanitizeText(row.workload, 40)}` : row.method === null ? 'overall' : sanitizeText(row.method, 40),
    metric: row.metric,
    base: formatValue(row.unit, row.base),
    head: formatValue(row.unit, row.head),
    delta: formatDelta(row.unit, row.delta),
    relative: formatRelative(row.relative, row.delta),
    noise: row.noise === null ? '' : `±${formatAmount(row.unit, row.noise)}`,
    verdict: `${row.verdict}${failed}`,
  };
}

/** "2 regressions · 1 improvement · 12 within noise · 30 ok", zero counts left out. */
export function countsLine(comparison: Comparison): string {
  const noun = (verdict: string, n: number) => (n !== 1 && (verdict === 'regression' || verdict === 'improvement') ? `${verdict}s` : verdict);
  return ROW_VERDICT_ORDER.filter((v) => comparison.counts[v] > 0)
    .map((v) => `${comparison.counts[v]} ${noun(v, comparison.counts[v])}`)
    .join(' · ');
}

/** One line per regression: what, how much, which rule. */
export function regressionLines(comparison: Comparison): string[] {
  return comparison.rows
    .filter((row) => row.verdict === 'regression')
    .map((row) => {
      const cells = rowCells(row);
      const change = row.type === 'metric' ? `${cells.base} → ${cells.head} (${cells.delta}, ${cells.relative})` : `${cells.base} → ${cells.head}`;
      return `${cells.scope} ${cells.metric}: ${change} breaks ${row.failedRules.join(', ')}`;
    });
}

/** One line per scope with a latency regression: the head run's slowest exemplars there (trace id, latency, outcome, client). */
export function slowestExemplarLines(comparison: Comparison, code: (text: string) => string = (t) => t): string[] {
  return (comparison.slowestInHead ?? []).map(({ method, exemplars }) => {
    const list = exemplars.map((e) => `${code(e.traceId)} ${formatMs(e.latencyMs)} ms ${code(sanitizeText(e.outcome, 60))} ${code(sanitizeText(e.client, 60))}`);
    return `slowest in head, ${method === null ? 'all methods' : code(sanitizeText(method, 60))}: ${list.join('; ')}`;
  });
}

/** Rows with the most severe verdicts first, otherwise in their natural order. */
export function rowsBySeverity(rows: readonly ComparisonRow[]): ComparisonRow[] {
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => ROW_VERDICT_ORDER.indexOf(a.row.verdict) - ROW_VERDICT_ORDER.indexOf(b.row.verdict) || a.index - b.index)
    .map(({ row }) => row);
}
