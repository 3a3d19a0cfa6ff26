/** The terminal rendering of a comparison: aligned columns, verdicts coloured when asked to. */
import { sanitizeText } from '../../util/sanitize.ts';
import { paint, type Style } from '../../util/terminal-style.ts';
import type { Comparison, ComparedRun } from './compare-runs.ts';
import { countsLine, regressionLines, rowCells, slowestExemplarLines, type RowCells } from './format.ts';
import type { RowVerdict } from './row-verdict.ts';
import { workloadInOneRunLine } from './compare-workloads.ts';

export interface TableOptions {
  /** ANSI colours; the caller decides (colourEnabled). */
  readonly color: boolean;
}

const COLUMNS: readonly { key: keyof RowCells; title: string; right?: boolean }[] = [
  { key: 'scope', title: 'scope' },
  { key: 'metric', title: 'metric' },
  { key: 'base', title: 'base', right: true },
  { key: 'head', title: 'head', right: true },
  { key: 'delta', title: 'Δ', right: true },
  { key: 'relative', title: 'Δ%', right: true },
  { key: 'noise', title: 'noise', right: true },
  { key: 'verdict', title: 'verdict' },
];

const VERDICT_STYLE: Readonly<Record<RowVerdict, Style | readonly Style[] | null>> = {
  regression: ['strong', 'bad'],
  worse: 'warn',
  improvement: 'ok',
  'within noise': 'dim',
  ok: null,
  'n/a': 'dim',
};

const runLine = (role: string, run: ComparedRun): string =>
  `${role}  ${sanitizeText(run.label)}  (${sanitizeText(run.profile, 60)} · run ${sanitizeText(run.id, 60)} · ${run.startedAt} · ${run.status} · ${run.requests} requests)`;

export function renderComparisonTable(comparison: Comparison, options: TableOptions): string {
  const styled = (text: string, style: Style | readonly Style[] | null): string => paint(text, style, options.color);
  const cells = comparison.rows.map(rowCells);
  const widths = COLUMNS.map((col) => Math.max(col.title.length, ...cells.map((c) => c[col.key].length)));
  const line = (values: readonly string[]): string =>
    values
      .map((value, i) => (COLUMNS[i]!.right ? value.padStart(widths[i]!) : value.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [runLine('base', comparison.base), runLine('head', comparison.head)];
  out.push(`rules ${comparison.rules.length > 0 ? comparison.rules.join(', ') : 'none (report only)'}`);
  if (comparison.shapeDifferences.length > 0) out.push(styled(`forced: load shapes differ: ${comparison.shapeDifferences.join('; ')}`, 'warn'));
  for (const workload of comparison.workloadsInOneRun) out.push(styled(workloadInOneRunLine(workload, sanitizeText(workload.name, 40)), 'warn'));
  out.push('', styled(line(COLUMNS.map((col) => col.title)), 'strong'));
  comparison.rows.forEach((row, i) => {
    const values = COLUMNS.map((col) => cells[i]![col.key]);
    const text = line(values);
    // Colour only the verdict column, so the numbers stay readable.
    const verdictAt = text.length - values[values.length - 1]!.length;
    out.push(text.slice(0, verdictAt) + styled(text.slice(verdictAt), VERDICT_STYLE[row.verdict]));
  });
  out.push('');
  if (comparison.regression) {
    out.push(styled('REGRESSION', ['strong', 'bad']));
    for (const text of regressionLines(comparison)) out.push(`  ${text}`);
  } else {
    out.push(styled('OK: no regression', ['strong', 'ok']));
  }
  for (const text of slowestExemplarLines(comparison)) out.push(text);
  out.push(countsLine(comparison));
  return `${out.join('\n')}\n`;
}
