/**
 * `--fail-on` rules: which worsening fails the comparison (exit 1). Parsed up front, so a typo
 * fails before anything is read. Grammar, comma-separated:
 *   [METHOD:|*:]METRIC:±AMOUNT(%|pp|ms)[±FLOOR(ms|pp)]
 *       e.g. p99:+10%  rps:-5%  errors:+0.5pp  items.list:p99:+25ms  p50:+10%+1ms  p95:+10%
 *   A relative limit may carry an absolute floor: `p50:+10%+1ms` fails only when p50 rose by more
 *   than 10 % AND by more than 1 ms — sub-millisecond figures move by tens of percent between
 *   identical runs (scheduling, CPU frequency), which no within-run noise estimate can see.
 *   checks:any-new-fail | thresholds:any-new-fail
 *   none                                   (no rules: report only, never exit 1)
 * Without a prefix a metric rule gates the overall figure; `METHOD:` one method; `*:` every method.
 */
import { RpcloadError } from '../../errors.ts';
import { METRIC_NAMES, metricSpec, type MetricName } from './metrics.ts';

export const DEFAULT_FAIL_ON = 'p50:+10%+1ms,p99:+10%+1ms,rps:-5%,errors:+0.5pp,checks:any-new-fail,thresholds:any-new-fail';

/** How far a metric may move in its bad direction: relative (%), percentage points, or ms. */
export interface RuleLimit {
  readonly unit: '%' | 'pp' | 'ms';
  /** Magnitude in the unit as written (10 for +10%, 0.5 for +0.5pp, 25 for +25ms). */
  readonly amount: number;
  /** An absolute floor the move must also pass (ms for latencies, pp for shares); null = none. */
  readonly floor: { readonly unit: 'pp' | 'ms'; readonly amount: number } | null;
}

export interface MetricRule {
  readonly kind: 'metric';
  /** The rule as written, for messages. */
  readonly text: string;
  /** null: overall; '*': every method; else one method name. */
  readonly method: string | null;
  readonly metric: MetricName;
  readonly limit: RuleLimit;
}

export interface StatusRule {
  readonly kind: 'checks' | 'thresholds';
  readonly text: string;
}

export type FailOnRule = MetricRule | StatusRule;

const METRIC_RULE = /^(?:(.+):)?([a-z_.0-9]+):([+-])(\d+(?:\.\d+)?)(%|pp|ms)(?:([+-])(\d+(?:\.\d+)?)(pp|ms))?$/;

/** Parse one rule; returns the reason it is not a rule instead of throwing, for one message per flag. */
export function parseFailOnRule(text: string): FailOnRule | string {
  if (text === 'checks:any-new-fail' || text === 'thresholds:any-new-fail') return { kind: text === 'checks:any-new-fail' ? 'checks' : 'thresholds', text };
  const match = METRIC_RULE.exec(text);
  if (!match) return 'expected METRIC:+N% / +Npp / +Nms, optionally with a floor (+10%+1ms) and METHOD: before it, checks:any-new-fail or thresholds:any-new-fail';
  const [, method, metricText, sign, amountText, unit, floorSign, floorText, floorUnit] = match as unknown as [
    string,
    string | undefined,
    string,
    string,
    string,
    RuleLimit['unit'],
    string | undefined,
    string | undefined,
    'pp' | 'ms' | undefined,
  ];
  const spec = metricSpec(metricText);
  if (spec === undefined) return `unknown metric "${metricText}" (expected one of ${METRIC_NAMES.join(', ')}, or any percentile like p95 or service.p75)`;
  const badSign = spec.better === 'lower' ? '+' : '-';
  if (sign !== badSign) return `${spec.name} regresses when it ${badSign === '+' ? 'rises' : 'falls'}: write ${badSign}${amountText}${unit}`;
  if (unit === 'pp' && spec.unit !== 'ratio') return `pp (percentage points) applies only to errors and rate_limited`;
  if (unit === 'ms' && spec.unit !== 'ms') return `ms applies only to latency metrics`;
  let floor: RuleLimit['floor'] = null;
  if (floorUnit !== undefined) {
    if (unit !== '%') return `a floor (${floorSign}${floorText}${floorUnit}) goes with a relative limit in %`;
    if (floorSign !== badSign) return `the floor moves the same way as the limit: write ${badSign}${floorText}${floorUnit}`;
    if (floorUnit === 'pp' && spec.unit !== 'ratio') return `a pp floor applies only to errors and rate_limited`;
    if (floorUnit === 'ms' && spec.unit !== 'ms') return `an ms floor applies only to latency metrics`;
    floor = { unit: floorUnit, amount: Number(floorText) };
  }
  return { kind: 'metric', text, method: method ?? null, metric: spec.name, limit: { unit, amount: Number(amountText), floor } };
}

/** Parse a `--fail-on` value; every bad rule is named in one one-line error (exit 2). */
export function parseFailOnRules(text: string): FailOnRule[] {
  const parts = text.split(',').map((part) => part.trim()).filter((part) => part.length > 0);
  if (parts.length === 1 && parts[0] === 'none') return [];
  if (parts.length === 0) throw new RpcloadError('bad_flag', '--fail-on: no rules given (use "none" to never fail)');
  const rules: FailOnRule[] = [];
  const problems: string[] = [];
  for (const part of parts) {
    const rule = parseFailOnRule(part);
    if (typeof rule === 'string') problems.push(`rule ${JSON.stringify(part)}: ${rule}`);
    else rules.push(rule);
  }
  if (problems.length > 0) throw new RpcloadError('bad_flag', `--fail-on: ${problems.join('; ')}`);
  return rules;
}

/** The metric rules that gate one row: overall rules for scope null, `*` and named rules for a method. */
export function rulesForMetric(rules: readonly FailOnRule[], scope: string | null, metric: MetricName): MetricRule[] {
  return rules.filter(
    (rule): rule is MetricRule =>
      rule.kind === 'metric' && rule.metric === metric && (scope === null ? rule.method === null : rule.method === '*' || rule.method === scope),
  );
}

/** True when a bad-direction move of `badDelta` (≥ 0, in the metric's unit; ratios as fractions) breaks the limit (and its floor). */
export function exceedsLimit(limit: RuleLimit, base: number, badDelta: number): boolean {
  if (badDelta <= 0) return false;
  const floor = limit.floor;
  if (floor !== null && !exceedsAbsolute(floor.unit, floor.amount, badDelta)) return false;
  // From zero any rise is an infinite relative change.
  if (limit.unit === '%') return base === 0 ? true : (badDelta / Math.abs(base)) * 100 > limit.amount;
  return exceedsAbsolute(limit.unit, limit.amount, badDelta);
}

function exceedsAbsolute(unit: 'pp' | 'ms', amount: number, badDelta: number): boolean {
  return unit === 'pp' ? badDelta * 100 > amount : badDelta > amount;
}
