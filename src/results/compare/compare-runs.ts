/**
 * The comparison of two result files: every metric overall and per method, the main ones per
 * workload (compare-workloads.ts), plus checks and thresholds, each row judged against its noise
 * bound and the --fail-on rules.
 */
import { RpcloadError } from '../../errors.ts';
import { sanitizeText } from '../../util/sanitize.ts';
import type { CheckVerdict, Exemplar, RunResult } from '../../contract/result-schema.ts';
import { rulesForMetric, type FailOnRule } from './fail-on.ts';
import { loadShapeDifferences } from './load-shape.ts';
import { metricsFor, type MetricName, type MetricSpec, type MetricUnit } from './metrics.ts';
import { noiseBound } from './noise.ts';
import { ComparedRunFigures, methodScope, type FigureScope } from './compared-run-figures.ts';
import {
  configWithoutWorkloads,
  namesInOneRun,
  WORKLOAD_METRICS,
  workloadPresence,
  type WorkloadInOneRun,
  type WorkloadPresence,
} from './compare-workloads.ts';
import { judgeMetric, judgeStatus, ROW_VERDICT_ORDER, type RowVerdict } from './row-verdict.ts';

/** One metric of one scope in both runs. Ratios are fractions; deltas are in the metric's unit. */
export interface MetricRow {
  readonly type: 'metric';
  /** null: the overall figures (or a workload's); else a method name. */
  readonly method: string | null;
  /** Set on a workload's rows (method is then null): informational, no --fail-on rule gates them. */
  readonly workload?: string;
  readonly metric: MetricName;
  readonly unit: MetricUnit;
  readonly base: number | null;
  readonly head: number | null;
  readonly delta: number | null;
  /** delta / |base|; null when base is 0 or a value is missing. */
  readonly relative: number | null;
  /** A |delta| at or below this is within noise: K standard errors, plus the generator's own schedule lag for latencies. */
  readonly noise: number | null;
  readonly verdict: RowVerdict;
  /** The --fail-on rules gating this row, and those it broke. */
  readonly rules: readonly string[];
  readonly failedRules: readonly string[];
}

/** A check id or a threshold expression in both runs. */
export interface StatusRow {
  readonly type: 'check' | 'threshold';
  readonly name: string;
  readonly base: CheckVerdict | null;
  readonly head: CheckVerdict | null;
  /** The head's one-line detail (checks) or actual value (thresholds), for context. */
  readonly detail: string;
  readonly verdict: RowVerdict;
  readonly rules: readonly string[];
  readonly failedRules: readonly string[];
}

export type ComparisonRow = MetricRow | StatusRow;

export interface ComparedRun {
  readonly label: string;
  readonly id: string;
  readonly profile: string;
  readonly startedAt: string;
  readonly status: string;
  readonly requests: number;
}

export interface Comparison {
  readonly schema: 'rpcload/compare@1';
  readonly base: ComparedRun;
  readonly head: ComparedRun;
  readonly rules: readonly string[];
  /** Load-shape differences that --force let through (empty when the shapes match). */
  readonly shapeDifferences: readonly string[];
  /** Workloads only one run has: reported, not compared (their load is left out of the shape check). */
  readonly workloadsInOneRun: readonly WorkloadInOneRun[];
  readonly rows: readonly ComparisonRow[];
  readonly counts: Readonly<Record<RowVerdict, number>>;
  /** True when any row is a regression: the command exits 1. */
  readonly regression: boolean;
  /**
   * For each scope with a latency regression (or worse): the head run's slowest exemplars there,
   * the traces to open first. Absent when there is none, or the head run kept no exemplars.
   */
  readonly slowestInHead?: readonly ScopeExemplars[];
}

/** A scope's slowest exemplars of the head run (its method's, or every method's for the overall scope). */
export interface ScopeExemplars {
  /** null: the overall figures; else a method name. */
  readonly method: string | null;
  readonly exemplars: readonly Pick<Exemplar, 'traceId' | 'spanId' | 'latencyMs' | 'serviceTimeMs' | 'outcome' | 'client'>[];
}

/** Exemplars shown per scope next to a latency regression. */
const EXEMPLARS_PER_REGRESSION = 5;

/** The head's slowest exemplars of every scope whose latency regressed (or got worse). */
function slowestInHead(rows: readonly ComparisonRow[], head: RunResult): ScopeExemplars[] {
  if (head.exemplars === undefined) return [];
  const scopes = [
    ...new Set(rows.filter((r): r is MetricRow => r.type === 'metric' && r.workload === undefined && r.unit === 'ms' && (r.verdict === 'regression' || r.verdict === 'worse')).map((r) => r.method)),
  ];
  return scopes.flatMap((method) => {
    const pool = method === null ? Object.values(head.exemplars!).flat() : (head.exemplars![method] ?? []);
    const exemplars = pool
      .filter((e) => e.kinds.includes('slowest'))
      .sort((a, b) => b.latencyMs - a.latencyMs || a.spanId.localeCompare(b.spanId))
      .slice(0, EXEMPLARS_PER_REGRESSION)
      .map(({ traceId, spanId, latencyMs, serviceTimeMs, outcome, client }) => ({ traceId, spanId, latencyMs, serviceTimeMs, outcome, client }));
    return exemplars.length > 0 ? [{ method, exemplars }] : [];
  });
}

export interface CompareOptions {
  readonly rules: readonly FailOnRule[];
  /** Compare even when the load shapes differ (the differences are reported). */
  readonly force?: boolean;
}

export interface LabelledResult {
  /** How the run is named in messages and output, usually its file path. */
  readonly label: string;
  readonly result: RunResult;
}

const describeRun = ({ label, result }: LabelledResult): ComparedRun => ({
  label,
  id: result.run.id,
  profile: result.run.profile,
  startedAt: result.run.startedAt,
  status: result.run.status,
  requests: result.summary.requests,
});

function metricRow(
  spec: MetricSpec,
  scope: FigureScope,
  base: ComparedRunFigures,
  head: ComparedRunFigures,
  rules: readonly FailOnRule[],
): MetricRow {
  const method = scope.kind === 'method' ? scope.name : null;
  const gating = scope.kind === 'workload' ? [] : rulesForMetric(rules, method, spec.name);
  const baseStats = base.stats(scope);
  const headStats = head.stats(scope);
  const b = baseStats ? base.value(spec, scope, baseStats) : null;
  const h = headStats ? head.value(spec, scope, headStats) : null;
  let noise: number | null = null;
  if (baseStats && headStats && b !== null && h !== null) {
    const generator = Math.max(base.generatorAllowanceMs(spec), head.generatorAllowanceMs(spec), base.overrunAllowance(spec, b), head.overrunAllowance(spec, h));
    const [baseSe, headSe] = [base.standardError(spec, scope, baseStats, b), head.standardError(spec, scope, headStats, h)];
    noise = noiseBound(spec.unit, b, h, baseSe, headSe) + generator;
  }
  const judgement = judgeMetric({ base: b, head: h, better: spec.better, noise: noise ?? 0, rules: gating });
  const delta = b !== null && h !== null ? h - b : null;
  return {
    type: 'metric',
    method,
    ...(scope.kind === 'workload' ? { workload: scope.name } : {}),
    metric: spec.name,
    unit: spec.unit,
    base: b,
    head: h,
    delta,
    relative: delta !== null && b !== null && b !== 0 ? delta / Math.abs(b) : null,
    noise,
    ...judgement,
    rules: gating.map((rule) => rule.text),
  };
}

function statusRows(
  type: 'check' | 'threshold',
  base: ReadonlyMap<string, { verdict: CheckVerdict; detail: string }>,
  head: ReadonlyMap<string, { verdict: CheckVerdict; detail: string }>,
  rule: FailOnRule | undefined,
): StatusRow[] {
  const names = [...new Set([...head.keys(), ...base.keys()])];
  return names.map((name) => {
    const b = base.get(name)?.verdict ?? null;
    const h = head.get(name)?.verdict ?? null;
    return {
      type,
      name,
      base: b,
      head: h,
      detail: head.get(name)?.detail ?? base.get(name)?.detail ?? '',
      ...judgeStatus(b, h, rule?.text ?? null),
      rules: rule ? [rule.text] : [],
    };
  });
}

const checksOf = (r: RunResult) => new Map(r.checks.map((c) => [c.id, { verdict: c.verdict, detail: c.detail }]));
const thresholdsOf = (r: RunResult) =>
  new Map(r.thresholds.map((t) => [t.expr, { verdict: t.ok ? ('pass' as const) : ('fail' as const), detail: t.actual === null ? 'no value' : `actual ${t.actual}` }]));

/** Refuse what cannot be compared meaningfully; each reason is a one-line user error (exit 2). */
function assertComparable(
  base: LabelledResult,
  head: LabelledResult,
  rules: readonly FailOnRule[],
  force: boolean,
  presence: WorkloadPresence,
): string[] {
  for (const { label, result } of [base, head]) {
    if (result.run.kind !== 'verify' && result.summary.requests === 0) {
      throw new RpcloadError('bad_result', `${label}: summary.requests: expected a load run with requests, found 0 (run status ${result.run.status}): nothing to compare`);
    }
  }
  const methods = new Set([...Object.keys(base.result.byMethod), ...Object.keys(head.result.byMethod)]);
  const unknown = rules.filter((rule) => rule.kind === 'metric' && rule.method !== null && rule.method !== '*' && !methods.has(rule.method));
  if (unknown.length > 0) {
    const known = [...methods].map((m) => sanitizeText(m, 40)).join(', ') || 'none';
    throw new RpcloadError('bad_flag', `--fail-on: ${unknown.map((r) => `rule ${JSON.stringify(r.text)}`).join(', ')}: no such method in either file (methods: ${known})`);
  }
  // A workload only one run has is reported on its own line; the shape check judges the load both share.
  const dropped = namesInOneRun(presence);
  const shared = (r: RunResult): RunResult => (dropped.size === 0 ? r : { ...r, config: configWithoutWorkloads(r.config, dropped) });
  const differences = loadShapeDifferences(shared(base.result), shared(head.result));
  if (differences.length > 0 && !force) {
    throw new RpcloadError('incomparable', `cannot compare ${base.label} and ${head.label}: their load shapes differ (${differences.join('; ')}); use --force to compare anyway`);
  }
  return differences;
}

/**
 * Compare two result files metric by metric, overall and per method, plus checks and thresholds.
 * Pure apart from decoding histograms; throws RpcloadError when the runs cannot be compared.
 */
export function compareRuns(base: LabelledResult, head: LabelledResult, options: CompareOptions): Comparison {
  const presence = workloadPresence(base.result.byWorkload, head.result.byWorkload);
  const shapeDifferences = assertComparable(base, head, options.rules, options.force ?? false, presence);
  const baseRun = new ComparedRunFigures(base.label, base.result);
  const headRun = new ComparedRunFigures(head.label, head.result);
  const hasLoad = base.result.summary.requests > 0 || head.result.summary.requests > 0;
  const methods = [...new Set([...Object.keys(base.result.byMethod), ...Object.keys(head.result.byMethod)])].sort();
  const scopes: (string | null)[] = hasLoad ? [null, ...methods] : [];
  const metrics = metricsFor(options.rules.flatMap((rule) => (rule.kind === 'metric' ? [rule.metric] : [])));
  // Goodput is a figure of the summary, in files written since it was recorded.
  const goodput = base.result.summary.goodput !== undefined || head.result.summary.goodput !== undefined;
  const metricsOf = (method: string | null): MetricSpec[] => metrics.filter((spec) => spec.name !== 'goodput' || (method === null && goodput));
  const workloadMetrics = metrics.filter((spec) => WORKLOAD_METRICS.includes(spec.name));
  const hasGoodput = (name: string): boolean =>
    base.result.byWorkload?.[name]?.goodput !== undefined || head.result.byWorkload?.[name]?.goodput !== undefined;
  const workloadRows = presence.compared.flatMap((name) =>
    workloadMetrics
      .filter((spec) => spec.name !== 'goodput' || hasGoodput(name))
      .map((spec) => metricRow(spec, { kind: 'workload', name }, baseRun, headRun, options.rules)),
  );
  const rows: ComparisonRow[] = [
    ...scopes.flatMap((method) => metricsOf(method).map((spec) => metricRow(spec, methodScope(method), baseRun, headRun, options.rules))),
    ...workloadRows,
    ...statusRows('check', checksOf(base.result), checksOf(head.result), options.rules.find((r) => r.kind === 'checks')),
    ...statusRows('threshold', thresholdsOf(base.result), thresholdsOf(head.result), options.rules.find((r) => r.kind === 'thresholds')),
  ];
  const counts = Object.fromEntries(ROW_VERDICT_ORDER.map((v) => [v, rows.filter((row) => row.verdict === v).length])) as Record<RowVerdict, number>;
  const slowest = slowestInHead(rows, head.result);
  return {
    schema: 'rpcload/compare@1',
    base: describeRun(base),
    head: describeRun(head),
    rules: options.rules.map((rule) => rule.text),
    shapeDifferences,
    workloadsInOneRun: presence.inOneRun,
    rows,
    counts,
    regression: counts.regression > 0,
    ...(slowest.length > 0 ? { slowestInHead: slowest } : {}),
  };
}
