/**
 * The end-of-run summary that `rpcload run` and `verify` print on the terminal,
 * built from the result record.
 */
import { outcomeClass } from '../api/outcome.ts';
import { sanitizeText } from '../util/sanitize.ts';
import { paint, type Style } from '../util/terminal-style.ts';
import type { CheckResult, Goodput, Percentiles, RunResult, Stats } from '../contract/result-schema.ts';
import { replayLines, workloadTable } from './summary-workloads.ts';
import { formatCount, formatMs, formatShare, renderTable, thresholdActual } from './text-table.ts';

export interface SummaryTableOptions {
  /** ANSI colours; the caller decides (colourEnabled). */
  readonly color: boolean;
}

type Paint = (text: string) => string;

/** Server- or file-provided text, made safe for the terminal (once more: files can be edited). */
const safe = (text: string, max = 160): string => sanitizeText(text, max);

const LABEL_WIDTH = 16;
const labelled = (label: string, text: string): string => `${label.padEnd(LABEL_WIDTH)}${text}`;

function percentileLine(p: Percentiles): string {
  return `p50 ${formatMs(p.p50)}  p90 ${formatMs(p.p90)}  p99 ${formatMs(p.p99)}  p99.9 ${formatMs(p.p999)}  max ${formatMs(p.max)}`;
}

function classCounts(outcomes: Readonly<Record<string, number>>): { rateLimited: number; errors: number } {
  let rateLimited = 0;
  let errors = 0;
  for (const [key, n] of Object.entries(outcomes)) {
    const cls = outcomeClass(key);
    if (cls === 'rate_limited') rateLimited += n;
    else if (cls === 'error') errors += n;
  }
  return { rateLimited, errors };
}

/** One row per method (or per phase): requests, rps, latency percentiles, 429s and errors. */
function statsTable(scope: 'method' | 'phase', byScope: Readonly<Record<string, Stats>>): string[] {
  const rows = Object.entries(byScope).map(([name, s]) => {
    const { rateLimited, errors } = classCounts(s.outcomes);
    return [safe(name, 40), formatCount(s.requests), s.rps.toFixed(1), formatMs(s.latencyMs.p50), formatMs(s.latencyMs.p90), formatMs(s.latencyMs.p99), formatMs(s.latencyMs.max), formatCount(rateLimited), formatCount(errors)];
  });
  const right = (header: string) => ({ header, align: 'right' as const });
  const columns = [{ header: scope, align: 'left' as const }, right('requests'), right('rps'), right('p50 ms'), right('p90 ms'), right('p99 ms'), right('max ms'), right('429'), right('errors')];
  return rows.length === 0 ? [] : renderTable(columns, rows);
}

/** Lines under one label: the label on the first, the rest indented to match. */
function block(label: string, lines: readonly string[]): string[] {
  return lines.map((line, i) => labelled(i === 0 ? label : '', line));
}

/** `1,234  (123.4/s) succeeded within 250 ms`: the successes that met the SLO's latency bound. */
function goodputText(goodput: Goodput): string {
  const within = goodput.latencyBoundMs === null ? 'succeeded (no latency threshold)' : `succeeded within ${goodput.latencyBoundMs} ms`;
  return `${formatCount(goodput.requests)}  (${goodput.perS.toFixed(1)}/s) ${within}`;
}

function requestLines(result: RunResult): string[] {
  const { summary, run } = result;
  const from = run.model === 'closed' ? 'from the send' : run.model === 'open' ? 'from the intended start' : 'from the intended start in open phases';
  const outcomes = Object.entries(summary.outcomes)
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => `${safe(key, 60)} ${formatCount(n)} (${formatShare(n, summary.requests)})`);
  return [
    labelled('requests', `${formatCount(summary.requests)}  (${summary.rps.toFixed(1)}/s)`),
    ...(summary.goodput === undefined ? [] : [labelled('goodput', goodputText(summary.goodput))]),
    labelled('latency ms', `${percentileLine(summary.latencyMs)}  (${from})`),
    labelled('service ms', percentileLine(summary.serviceTimeMs)),
    ...(summary.scheduleLagMs === null ? [] : [labelled('sched. lag ms', percentileLine(summary.scheduleLagMs))]),
    ...block('outcomes', outcomes.length > 0 ? outcomes : ['none']),
  ];
}

/** `64 (h2 64)`: how many connections, and what each negotiated. */
export function connectionsLine(connections: NonNullable<RunResult['summary']['connections']>): string {
  const protocols = Object.entries(connections.byProtocol)
    .sort(([, a], [, b]) => b - a)
    .map(([protocol, n]) => `${safe(protocol, 20)} ${formatCount(n)}`);
  return `${formatCount(connections.opened)} (${protocols.join(', ')})`;
}

function checkLines(checks: readonly CheckResult[], painters: { pass: Paint; fail: Paint; skip: Paint }): string[] {
  const width = Math.max(...checks.map((c) => safe(c.id, 40).length));
  return checks.map((c) => {
    const mark = c.verdict === 'pass' ? painters.pass('✓') : c.verdict === 'fail' ? painters.fail('✗') : painters.skip('–');
    return `${mark} ${safe(c.id, 40).padEnd(width)}  ${safe(c.detail, 200)}`;
  });
}

/**
 * The end-of-run summary of `rpcload run` and `verify`: headline figures, outcomes with their
 * shares, a per-method table, a per-workload table (with several workloads), a per-phase table
 * (with several phases), tokens, skipped arrivals, thresholds ✓/✗, checks ✓/✗/– with their
 * detail, and warnings; sections apart by a blank line. The result file's path is the caller's
 * line to add.
 */
export function renderSummaryTable(result: RunResult, options: SummaryTableOptions): string {
  const { run, summary } = result;
  const styled =
    (style: Style): Paint =>
    (text) =>
      paint(text, style, options.color);
  const painters = { pass: styled('ok'), fail: styled('bad'), skip: styled('dim'), warn: styled('warn'), bold: styled('strong') };
  const status = run.status === 'completed' ? run.status : run.status === 'failed' ? painters.fail(run.status) : painters.warn(run.status);
  const target = `${safe(run.target, 100)}${run.embeddedTarget ? ' (embedded)' : ''}`;
  const header = [painters.bold(`rpcload ${run.kind}  ${safe(run.profile, 60)}  `) + `${status}  ${summary.durationS.toFixed(1)} s  ${target}`];
  if (run.failure !== undefined) header.push(painters.fail(`failed: ${safe(run.failure, 200)}`));
  if (run.stop !== undefined) {
    const at = (run.stop.atMs / 1000).toFixed(1);
    header.push(painters.fail(`stopped at ${at} s: the abortOnFail threshold ${safe(run.stop.threshold, 120)} failed`));
  }
  const sentLoad = summary.requests > 0 || run.kind === 'run';
  const { tokens } = summary;
  const extras = [
    ...(summary.connections === undefined ? [] : [labelled('connections', connectionsLine(summary.connections))]),
    ...(tokens.requests > 0 ? [labelled('tokens', `${formatCount(tokens.requests)} requests, ${formatCount(tokens.failures)} failed, p50 ${formatMs(tokens.latencyMs.p50)} ms, p99 ${formatMs(tokens.latencyMs.p99)} ms`)] : []),
    ...block('skipped', Object.entries(summary.skipped).map(([reason, n]) => `${safe(reason, 80)}: ${formatCount(n)}`)),
    ...block('replay', replayLines(result)),
  ];
  const sections = [
    header,
    sentLoad ? requestLines(result) : [],
    sentLoad ? statsTable('method', result.byMethod) : [],
    // Several workloads side by side: what each offered and achieved, and how it fared.
    sentLoad ? workloadTable(result.byWorkload) : [],
    // A warm-up reads apart from the steady state: a row per phase when there is more than one.
    sentLoad && Object.keys(result.byPhase).length > 1 ? statsTable('phase', result.byPhase) : [],
    sentLoad ? extras : [],
    block('thresholds', result.thresholds.map((t) => `${t.ok ? painters.pass('✓') : painters.fail('✗')} ${safe(t.expr, 120)}  (actual ${thresholdActual(t.expr, t.actual)})`)),
    block('checks', checkLines(result.checks, painters)),
    block('warnings', result.warnings.map((w) => painters.warn(`! ${safe(w, 240)}`))),
  ];
  return sections
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\n'))
    .join('\n\n');
}
