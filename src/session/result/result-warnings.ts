/**
 * The warnings a result implies by its own figures: a stalled server, timeouts, schedule lag,
 * skipped arrivals, failed token requests, truncated rate-limit periods.
 */
import { OUTCOME_TIMEOUT, OUTCOME_UNANSWERED } from '../../api/outcome.ts';
import { MAX_PERIODS_PER_CLIENT } from '../../metrics/ledger-data.ts';
import type { RunResult } from '../../contract/result-schema.ts';

/** Schedule lag p99 above this says the load generator, not the server, set the pace. */
export const LAG_WARNING_P99_MS = 5;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const listCounts = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([key, n]) => `${key}: ${n}`)
    .join(', ');

/**
 * Warnings a result implies by its own figures: things a reader should know before trusting the
 * numbers. Pure; buildRunResult appends them to the caller's warnings.
 */
export function generatedWarnings(result: RunResult): string[] {
  const { summary } = result;
  const warnings: string[] = [];
  if (summary.requests === 0 && result.run.status !== 'running')
    warnings.push('no request was sent: the run measured nothing (see the other warnings for why)');
  const lag = summary.scheduleLagMs;
  if (lag !== null && lag.p99 > LAG_WARNING_P99_MS) {
    warnings.push(`schedule lag p99 ${lag.p99.toFixed(1)} ms: the load generator, not the server, was the bottleneck`);
  }
  const unanswered = summary.outcomes[OUTCOME_UNANSWERED] ?? 0;
  if (unanswered > 0)
    warnings.push(
      `the server stalled: ${plural(unanswered, 'request')} sent but never answered by the end of the run (counted as ${OUTCOME_UNANSWERED})`,
    );
  const timedOut = summary.outcomes[OUTCOME_TIMEOUT] ?? 0;
  if (timedOut > 0)
    warnings.push(
      `${plural(timedOut, 'request')} got no complete reply within the request timeout (${OUTCOME_TIMEOUT})`,
    );
  const skipped = Object.values(summary.skipped).reduce((a, b) => a + b, 0);
  if (skipped > 0) warnings.push(`${plural(skipped, 'arrival')} not sent (${listCounts(summary.skipped)})`);
  if (summary.tokens.failures > 0) {
    const failed = Object.fromEntries(Object.entries(summary.tokens.outcomes).filter(([key]) => key !== 'success'));
    warnings.push(
      `${summary.tokens.failures} of ${plural(summary.tokens.requests, 'token request')} failed (${listCounts(failed)})`,
    );
  }
  const truncated = Object.entries(result.rateLimit?.clients ?? {}).filter(([, c]) => c.periodsTruncated);
  if (truncated.length > 0) {
    warnings.push(
      `rate-limit periods kept for the first ${MAX_PERIODS_PER_CLIENT} windows only (${plural(truncated.length, 'client')}); totals are complete`,
    );
  }
  return warnings;
}
