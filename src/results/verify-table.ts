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
import { judgeVerifyOutcome, skipClassOf, type VerifyOutcome } from '../verify/skip-policy.ts';

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

/** Skips per class, e.g. `{ target_broken: 7, not_applicable: 3 }`. */
export function countSkipClasses(checks: readonly CheckResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const check of checks) {
    const skipClass = skipClassOf(check);
    if (skipClass !== null) counts[skipClass] = (counts[skipClass] ?? 0) + 1;
  }
  return counts;
}

/** A skip's reason with its class: `no request got a response [target_broken]`. */
function reasonOf(check: CheckResult): string {
  const skipClass = skipClassOf(check);
  return skipClass === null ? check.detail : `${check.detail} [${skipClass}]`;
}

/**
 * The final table: a header line, one row per check (mark, id, reason), the counts, and — when
 * the verdicts do not add up to a pass — the one line saying why.
 */
export function renderVerifyTable(report: VerifyReport, config: VerifyConfig, color: boolean): string {
  const counts = countVerdicts(report.checks);
  const outcome = judgeVerifyOutcome(report.checks, config.allowSkip);
  const header = `rpcload verify  ${config.target}  ·  ${config.limit} requests per ${formatDurationMs(config.windowMs)} per client  ·  ${config.clients.length} client(s)  ·  ${formatDurationMs(report.durationMs)}${report.aborted ? '  ·  INTERRUPTED' : ''}`;
  const rows = report.checks.map((check) => `  ${mark(check.verdict, color)}  ${check.id.padEnd(ID_WIDTH)}  ${sanitizeText(reasonOf(check), 400)}`);
  const byClass = Object.entries(countSkipClasses(report.checks)).map(([name, n]) => `${n} ${name}`);
  const footer = `  ${counts.pass} passed · ${counts.fail} failed · ${counts.skip} skipped${byClass.length > 0 ? ` (${byClass.join(', ')})` : ''}`;
  const verdict = outcome.ok || report.aborted ? '' : `  ${paint(outcome.reason!, 'bad', color)}\n`;
  return `${header}\n\n${rows.join('\n')}\n\n${footer}\n${verdict}`;
}

/** `--json`: the checks and the figures of the run, for machines. */
export function verifyJson(report: VerifyReport, config: VerifyConfig): Record<string, unknown> {
  const counts = countVerdicts(report.checks);
  const outcome: VerifyOutcome = judgeVerifyOutcome(report.checks, config.allowSkip);
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
    skippedByClass: countSkipClasses(report.checks),
    ok: outcome.ok,
    notPassBecause: outcome.reason,
    checks: report.checks,
  };
}
