/**
 * GitHub-flavoured markdown for a CI job summary or a pull-request comment: a headline, the run
 * descriptions, then one table with the regressions first.
 */
import { sanitizeText } from '../../util/sanitize.ts';
import type { Comparison, ComparedRun } from './compare-runs.ts';
import { countsLine, rowCells, rowsBySeverity, slowestExemplarLines } from './format.ts';
import type { RowVerdict } from './row-verdict.ts';
import { workloadInOneRunLine } from './compare-workloads.ts';

const MARK: Readonly<Record<RowVerdict, string>> = {
  regression: '🔴',
  worse: '🟡',
  improvement: '🟢',
  'within noise': '⚪',
  ok: '',
  'n/a': '',
};

/**
 * Untrusted text (method names, check ids, file names) as a code span: GitHub renders no HTML or
 * markdown inside one; only `|` still needs escaping in a table, and backticks could end the span.
 */
export function markdownCode(text: string): string {
  return `\`${sanitizeText(text, 80).replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}

const runLine = (role: string, run: ComparedRun): string =>
  `**${role}** ${markdownCode(run.label)} — profile ${markdownCode(run.profile)}, run ${markdownCode(run.id)}, ${run.startedAt}, ${run.status}, ${run.requests} requests`;

export function renderComparisonMarkdown(comparison: Comparison): string {
  const regressions = comparison.counts.regression;
  const headline = comparison.regression ? `🔴 ${regressions} regression${regressions === 1 ? '' : 's'}` : '🟢 no regression';
  const out = [`### rpcload compare: ${headline}`, '', countsLine(comparison), '', `${runLine('base', comparison.base)}  `, runLine('head', comparison.head), ''];
  out.push(`Rules: ${comparison.rules.length > 0 ? comparison.rules.map(markdownCode).join(', ') : 'none (report only)'}`, '');
  if (comparison.shapeDifferences.length > 0) {
    out.push(`> ⚠️ Compared with --force although the load shapes differ: ${comparison.shapeDifferences.map(markdownCode).join('; ')}`, '');
  }
  for (const workload of comparison.workloadsInOneRun) out.push(`> ${workloadInOneRunLine(workload, markdownCode(workload.name))}`, '');
  out.push('| | scope | metric | base | head | Δ | Δ% | noise | verdict |', '|---|---|---|--:|--:|--:|--:|--:|---|');
  for (const row of rowsBySeverity(comparison.rows)) {
    const c = rowCells(row);
    const verdict = row.failedRules.length > 0 ? `**${row.verdict}** (${row.failedRules.map(markdownCode).join(', ')})` : row.verdict;
    const named = row.type === 'metric' ? (row.workload ?? row.method) : null;
    const scope = named === null ? c.scope : `${row.type === 'metric' && row.workload !== undefined ? 'workload ' : ''}${markdownCode(named)}`;
    const metric = row.type === 'metric' ? c.metric : markdownCode(row.name);
    out.push(`| ${MARK[row.verdict]} | ${scope} | ${metric} | ${c.base} | ${c.head} | ${c.delta} | ${c.relative} | ${c.noise} | ${verdict} |`);
  }
  const slowest = slowestExemplarLines(comparison, markdownCode);
  if (slowest.length > 0) out.push('', ...slowest.map((line) => `- ${line}`));
  return `${out.join('\n')}\n`;
}
