import { describe, expect, it } from 'vitest';
import { MAX_PERIODS_PER_CLIENT } from '../../src/metrics/ledger-data.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { generatedWarnings, LAG_WARNING_P99_MS } from '../../src/session/result/result-warnings.ts';
import { sampleResult } from '../support/recorder-fixtures.ts';

const base = sampleResult();
const lagged = (p99: number): RunResult => ({
  ...base,
  summary: { ...base.summary, scheduleLagMs: { ...base.summary.scheduleLagMs!, p99 } },
});

describe('generatedWarnings', () => {
  it.each([
    ['lag p99 at the threshold: no warning', lagged(LAG_WARNING_P99_MS), []],
    [
      'lag p99 above it: the generator was the bottleneck',
      lagged(LAG_WARNING_P99_MS + 7.26),
      [
        `schedule lag p99 ${(LAG_WARNING_P99_MS + 7.26).toFixed(1)} ms: the load generator, not the server, was the bottleneck`,
      ],
    ],
    [
      'a run that sent nothing measured nothing',
      { ...base, summary: { ...base.summary, requests: 0, skipped: { 'client backing off': 3 } } },
      [
        'no request was sent: the run measured nothing (see the other warnings for why)',
        '3 arrivals not sent (client backing off: 3)',
      ],
    ],
    [
      'a checkpoint of a run that has sent nothing yet: no warning',
      { ...base, run: { ...base.run, status: 'running' }, summary: { ...base.summary, requests: 0 } },
      [],
    ],
    ['closed model (no lag figures): no warning', { ...base, summary: { ...base.summary, scheduleLagMs: null } }, []],
    [
      'skipped arrivals, largest reason first',
      { ...base, summary: { ...base.summary, skipped: { 'max in-flight reached': 2, 'all clients backing off': 5 } } },
      ['7 arrivals not sent (all clients backing off: 5, max in-flight reached: 2)'],
    ],
    [
      'failed token requests',
      {
        ...base,
        summary: {
          ...base.summary,
          tokens: {
            ...base.summary.tokens,
            requests: 4,
            failures: 1,
            outcomes: { success: 3, 'error:invalid_client': 1 },
          },
        },
      },
      ['1 of 4 token requests failed (error:invalid_client: 1)'],
    ],
    [
      'truncated rate-limit periods',
      {
        ...base,
        rateLimit: {
          ...base.rateLimit!,
          clients: { c1: { sent: 1, admitted: 1, refused: 0, periods: [], periodsTruncated: true, retryAfterS: {} } },
        },
      },
      [`rate-limit periods kept for the first ${MAX_PERIODS_PER_CLIENT} windows only (1 client); totals are complete`],
    ],
  ] as const)('%s', (_, result, expected) => {
    expect(generatedWarnings(result as RunResult)).toEqual(expected);
  });
});
