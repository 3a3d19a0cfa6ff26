/**
 * The verdict of a compare row (a "row verdict", never a check's pass/fail/skip), pure:
 * - `regression`   worse beyond the noise bound AND past a --fail-on limit: fails the comparison
 * - `worse`        worse beyond the noise bound, but no rule's limit is passed (informational)
 * - `improvement`  better beyond the noise bound
 * - `within noise` changed, but by no more than the noise bound
 * - `ok`           unchanged
 * - `n/a`          missing from one of the runs
 */
import type { CheckVerdict } from '../../contract/result-schema.ts';
import { exceedsLimit, type MetricRule } from './fail-on.ts';

export type RowVerdict = 'regression' | 'worse' | 'improvement' | 'within noise' | 'ok' | 'n/a';

/** Most severe first: the order of markdown output and of the summary counts. */
export const ROW_VERDICT_ORDER: readonly RowVerdict[] = ['regression', 'worse', 'improvement', 'within noise', 'ok', 'n/a'];

export interface MetricJudgement {
  readonly verdict: RowVerdict;
  /** The rules whose limit the change passed (non-empty exactly when verdict is regression). */
  readonly failedRules: readonly string[];
}

export interface MetricInput {
  readonly base: number | null;
  readonly head: number | null;
  readonly better: 'lower' | 'higher';
  /** |delta| at or below this is noise. */
  readonly noise: number;
  readonly rules: readonly MetricRule[];
}

export function judgeMetric({ base, head, better, noise, rules }: MetricInput): MetricJudgement {
  if (base === null || head === null) return { verdict: 'n/a', failedRules: [] };
  const delta = head - base;
  if (delta === 0) return { verdict: 'ok', failedRules: [] };
  if (Math.abs(delta) <= noise) return { verdict: 'within noise', failedRules: [] };
  const badDelta = better === 'lower' ? delta : -delta;
  if (badDelta < 0) return { verdict: 'improvement', failedRules: [] };
  const failedRules = rules.filter((rule) => exceedsLimit(rule.limit, base, badDelta)).map((rule) => rule.text);
  return { verdict: failedRules.length > 0 ? 'regression' : 'worse', failedRules };
}

/**
 * A check or threshold across the two runs ('fail' / 'pass' / 'skip'; null when absent). A new
 * failure — failing in head, not failing in base (passing, skipped or absent) — is worse, and a
 * regression when gated by the rule; a failure that now passes is an improvement.
 */
export function judgeStatus(base: CheckVerdict | null, head: CheckVerdict | null, gatingRule: string | null): MetricJudgement {
  if (head === 'fail' && base !== 'fail') {
    return gatingRule ? { verdict: 'regression', failedRules: [gatingRule] } : { verdict: 'worse', failedRules: [] };
  }
  if (base === 'fail' && head === 'pass') return { verdict: 'improvement', failedRules: [] };
  if (base !== null && base === head) return { verdict: 'ok', failedRules: [] };
  return { verdict: 'n/a', failedRules: [] };
}
