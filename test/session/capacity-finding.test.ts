import { describe, expect, it } from 'vitest';
import type { CapacityStep } from '../../src/contract/capacity-schema.ts';
import { capacityAnswer, type Attempt, type SearchEnd } from '../../src/session/capacity/capacity-answer.ts';
import { capacityFinding, type SearchedUnit } from '../../src/session/capacity/capacity-finding.ts';

/** A step record as the session keeps it: only what the finding reads matters. */
function step(kind: CapacityStep['kind'], load: number, decidedBy: string | null, holdS = 5): CapacityStep {
  const none = { p50: 0, p90: 0, p99: 0, max: 0 };
  return {
    index: 1,
    kind,
    load,
    phase: 'p',
    warmUpPhase: null,
    holdS,
    requests: 0,
    offeredPerS: 0,
    achievedPerS: 0,
    latencyMs: none,
    serviceTimeMs: none,
    scheduleLagMs: null,
    errorRate: 0,
    rateLimitedRate: 0,
    verdict: decidedBy === null ? 'pass' : 'fail',
    decidedBy,
    slo: [],
  };
}

const attempt = (s: CapacityStep, limit: Attempt['limit'] = null): Attempt => ({
  kind: s.kind,
  load: s.load,
  verdict: s.verdict,
  limit: s.verdict === 'fail' ? (limit ?? 'latency') : null,
});
const end = (
  lastPass: number | null,
  firstFail: number | null,
  limitedBy: SearchEnd['limitedBy'],
  why: string | null = null,
): SearchEnd => ({
  lastPass,
  firstFail,
  limitedBy,
  atLeast: why !== null,
  why,
});

function findingOf(
  searched: SearchedUnit,
  searchEnd: SearchEnd,
  steps: CapacityStep[],
  options: { ratePerSAt?: (answer: number) => number; limit?: Attempt['limit']; quotaText?: string } = {},
): string {
  const attempts = steps.map((s) => attempt(s, options.limit));
  const answer = capacityAnswer(
    searchEnd,
    attempts.filter((a) => a.kind === 'search'),
    attempts.filter((a) => a.kind === 'confirm'),
  );
  return capacityFinding({
    searched,
    answer,
    ratePerS: answer.answer === null ? null : (options.ratePerSAt ?? ((n) => n))(answer.answer),
    steps,
    quotaText: options.quotaText ?? null,
  });
}

const P99 = 'p99 < 250ms';
const replayRate = (speed: number) => Math.round(speed * 20.123 * 1000) / 1000;

describe('the one-line capacity finding', () => {
  it.each<[string, () => string, string]>([
    [
      'a rate, bracketed',
      () => findingOf('open', end(40, 50, 'latency'), [step('search', 40, null), step('search', 50, P99)]),
      'capacity 40/s (bracket 40/s – 50/s; limited by latency (p99 < 250ms failed at 50/s))',
    ],
    [
      'virtual users, with the rate they made',
      () =>
        findingOf('closed', end(8, 9, 'latency'), [step('search', 8, null), step('search', 9, P99)], {
          ratePerSAt: () => 123,
        }),
      'capacity 8 users (123/s) (bracket 8 users – 9 users; limited by latency (p99 < 250ms failed at 9 users))',
    ],
    [
      'a speed of the recording, in × and calls per second',
      () =>
        findingOf('replay', end(2, 2.1, 'latency'), [step('search', 2, null), step('search', 2.1, P99)], {
          ratePerSAt: replayRate,
        }),
      'capacity 2× the recording (40.246 calls/s; bracket 2×–2.1×); limited by latency (p99 < 250ms failed at 2.1×)',
    ],
    [
      'a replay whose confirmation failed: the answer inside its bracket, every confirmation named',
      () =>
        findingOf(
          'replay',
          end(2, 2.1, 'throughput'),
          [
            step('search', 1, null),
            step('search', 2, null),
            step('search', 2.1, 'achieved >= 99% of offered'),
            step('confirm', 2, 'achieved >= 99% of offered', 15),
            step('confirm', 1.9, 'achieved >= 99% of offered', 15),
            step('confirm', 1.8, 'achieved >= 99% of offered', 15),
          ],
          { ratePerSAt: replayRate, limit: 'throughput' },
        ),
      'capacity 1× the recording (20.123 calls/s; bracket 1×–1.8×); limited by throughput (achieved >= 99% of offered failed at 1.8×); ' +
        'NOT confirmed: 2×, 1.9× and 1.8× failed achieved >= 99% of offered over 15 s',
    ],
    [
      'limited by the clients’ quotas: "at least", with the quota arithmetic',
      () =>
        findingOf(
          'replay',
          end(1.4, 1.5, 'client quota'),
          [step('search', 1.4, null), step('search', 1.5, 'busiest client <= its quota')],
          {
            ratePerSAt: replayRate,
            limit: 'client quota',
            quotaText: 'app-1 sends 6.8 calls/s at 1× against its quota of 10/s (100 per 10 s): at most 1.47×',
          },
        ),
      'capacity at least 1.4× the recording (28.172 calls/s; bracket 1.4×–1.5×); limited by client quota (busiest client <= its quota failed at 1.5×: ' +
        'app-1 sends 6.8 calls/s at 1× against its quota of 10/s (100 per 10 s): at most 1.47×)',
    ],
    [
      'confirmed after stepping down',
      () =>
        findingOf('open', end(200, 210, 'latency'), [
          step('search', 200, null),
          step('search', 210, P99),
          step('confirm', 200, P99, 15),
          step('confirm', 190, null, 15),
        ]),
      'capacity 190/s (bracket 190/s – 200/s; limited by latency (p99 < 250ms failed at 200/s)); confirmed over 15 s after stepping down from 200/s',
    ],
    [
      'generator-bound: at least, and why',
      () =>
        findingOf(
          'replay',
          end(1, null, 'generator', 'generator-bound at 2×: schedule lag p99 28 ms > 20 ms'),
          [step('search', 1, null)],
          {
            ratePerSAt: replayRate,
          },
        ),
      'capacity at least 1× the recording (20.123 calls/s; generator-bound at 2×: schedule lag p99 28 ms > 20 ms)',
    ],
    [
      'nothing passed',
      () => findingOf('replay', end(null, 0.5, 'latency'), [step('search', 1, P99), step('search', 0.5, P99)]),
      'no load met the SLO: the lowest step, 0.5×, failed p99 < 250ms',
    ],
  ])('%s', (_, finding, expected) => {
    expect(finding()).toBe(expected);
  });
});
