/**
 * Text for people: the final table (stdout; live progress is the ui module's). A symbol and
 * a plain word for every verdict, so logs without colour (NO_COLOR, CI) read the same.
 */
import type { CheckResult, CheckVerdict } from '../contract/result-schema.ts';
import { formatDurationMs } from '../util/duration.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { paint, type Style } from '../util/terminal-style.ts';
import type { VerifyReport } from '../verify/runner.ts';
import { CHECK_IDS } from '../verify/check-ids.ts';
import type { VerifyConfig } from '../verify/config.ts';

const MARK: Readonly<Record<CheckVerdict, { readonly symbol: string; readonly word: string; readonly style: Style }>> = {
  pass: { symbol: '✓', word: 'PASS', style: 'ok' },
  fail: { symbol: '✗', word: 'FAIL', style: 'bad' },
  skip: { symbol: '–', word: 'SKIP', style: 'warn' },
};
const ID_WIDTH = Math.max(...CHECK_IDS.map((id) => id.length));

function mark(verdict: CheckVerdict, color: boolean): string {
  const { symbol, word, style } = MARK[verdict];
  return paint(`${symbol} ${word}`, style, color);
}

export interface VerdictCounts {
  readonly pass: number;
  readonly fail: number;
  readonly skip: number;
}

export function countVerdicts(checks: readonly CheckResult[]): VerdictCounts {
  const counts = { pass: 0, fail: 0, skip: 0 };
  for (const check of checks) counts[check.verdict]++;
  return counts;
}

/** The final table: a header line, one row per check (mark, id, reason), and the counts. */
export function renderVerifyTable(report: VerifyReport, config: VerifyConfig, color: boolean): string {
  const counts = countVerdicts(report.checks);
  const header = `rpcload verify  ${config.target}  ·  ${config.limit} requests per ${formatDurationMs(config.windowMs)} per client  ·  ${config.clients.length} client(s)  ·  ${formatDurationMs(report.durationMs)}${report.aborted ? '  ·  INTERRUPTED' : ''}`;
  const rows = report.checks.map((check) => `  ${mark(check.verdict, color)}  ${check.id.padEnd(ID_WIDTH)}  ${sanitizeText(check.detail, 400)}`);
  const footer = `  ${counts.pass} passed · ${counts.fail} failed · ${counts.skip} skipped`;
  return `${header}\n\n${rows.join('\n')}\n\n${footer}\n`;
}

/** `--json`: the checks and the figures of the run, for machines. */
export function verifyJson(report: VerifyReport, config: VerifyConfig): Record<string, unknown> {
  const counts = countVerdicts(report.checks);
  return {
    target: config.target,
    limit: config.limit,
    windowMs: config.windowMs,
    clients: config.clients.length,
    startedAt: report.startedAt.toISOString(),
    durationMs: Math.round(report.durationMs),
    aborted: report.aborted,
    passed: counts.pass,
    failed: counts.fail,
    skipped: counts.skip,
    checks: report.checks,
  };
}
