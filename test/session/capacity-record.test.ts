import { describe, expect, it } from 'vitest';
import type { CapacityLimit, CapacityRecord, CapacityStep } from '../../src/contract/capacity-schema.ts';
import { resolveCapacity, type CapacityPlan } from '../../src/profile/capacity-settings.ts';
import type { SearchEnd } from '../../src/session/capacity/capacity-answer.ts';
import { capacityRecord, type CapacityRecordInput } from '../../src/session/capacity/capacity-record.ts';
import type { QuotaUse } from '../../src/session/capacity/client-quota.ts';
import type { JudgedStep } from '../../src/session/capacity/judge-step.ts';
import { searchSetup } from '../../src/session/capacity/searched-workload.ts';
import { stepPlan } from '../../src/session/capacity/step-plan.ts';
import { testPlan } from '../support/load-run.ts';

const OPEN: CapacityPlan = { ...resolveCapacity({}, []), start: 20 };
const CLOSED: CapacityPlan = { ...OPEN, model: 'closed', start: 1 };

/** A judged step: pass, or failed by `limit` (decided by `line`); achieved = load unless told. */
function judged(
  kind: CapacityStep['kind'],
  load: number,
  fail: [CapacityLimit, string] | null = null,
  extra: { achievedPerS?: number; retried?: boolean; quota?: QuotaUse } = {},
): JudgedStep {
  const none = { p50: 1, p90: 2, p99: 3, max: 4 };
  return {
    record: {
      index: 1,
      kind,
      load,
      phase: `${kind}-${load}`,
      warmUpPhase: null,
      holdS: kind === 'search' ? 5 : 15,
      requests: 0,
      offeredPerS: load,
      achievedPerS: extra.achievedPerS ?? load,
      latencyMs: none,
      serviceTimeMs: none,
      scheduleLagMs: null,
      errorRate: 0,
      rateLimitedRate: 0,
      verdict: fail === null ? 'pass' : 'fail',
      decidedBy: fail?.[1] ?? null,
      ...(extra.retried ? { retried: true } : {}),
      slo: [],
    },
    limit: fail?.[0] ?? null,
    quota: extra.quota ?? null,
  };
}

const end = (lastPass: number | null, firstFail: number | null, limitedBy: CapacityLimit = 'latency'): SearchEnd => ({
  lastPass,
  firstFail,
  limitedBy,
  atLeast: false,
  why: null,
});
const P99: [CapacityLimit, string] = ['latency', 'p99 < 100ms'];
const QUOTA: QuotaUse = {
  limit: 100,
  windowS: 10,
  due: 100,
  refused: 0,
  heldBack: 5,
  busiest: { id: 'app-2', perS: 13.8 },
};

function record(input: Partial<CapacityRecordInput> & Pick<CapacityRecordInput, 'end' | 'steps'>): CapacityRecord {
  return capacityRecord({ cap: OPEN, replayPerSpeed: null, confirmation: null, sloLines: ['p99 < 100ms'], ...input });
}

describe('the capacity record', () => {
  it.each<[string, () => CapacityRecord, Partial<CapacityRecord>]>([
    [
      'a rate: the answer is the rate, the bracket the search’s, the SLO lines with the implicit ones',
      () => record({ end: end(300, 310), steps: [judged('search', 300), judged('search', 310, P99)] }),
      {
        ratePerS: 300,
        bracket: [300, 310],
        limitedBy: 'latency',
        atLeast: false,
        confirmation: null,
        slo: ['p99 < 100ms', 'achieved >= 99% of offered', 'rate_limited < 1%'],
      },
    ],
    [
      'a retried attempt is superseded by its retry',
      () =>
        record({
          end: end(300, null),
          steps: [judged('search', 300, P99, { retried: true }), judged('search', 300)],
        }),
      { ratePerS: 300, bracket: [300, null] },
    ],
    [
      'a confirmation after stepping down: the confirmed load, and where it started',
      () =>
        record({
          end: end(300, 310),
          steps: [
            judged('search', 300),
            judged('search', 310, P99),
            judged('confirm', 300, P99),
            judged('confirm', 285),
          ],
          confirmation: { load: 285, passed: true, found: 300 },
        }),
      {
        ratePerS: 285,
        bracket: [285, 300],
        confirmation: { load: 285, holdS: 15, passed: true, steppedDownFrom: 300 },
      },
    ],
    [
      'virtual users: the concurrency, the throughput it achieved, and a USL fit',
      () =>
        capacityRecord({
          cap: CLOSED,
          replayPerSpeed: null,
          end: end(8, 9),
          steps: [
            judged('search', 1, null, { achievedPerS: 50 }),
            judged('search', 2, null, { achievedPerS: 98 }),
            judged('search', 4, null, { achievedPerS: 180 }),
            judged('search', 8, null, { achievedPerS: 199 }),
            judged('search', 9, P99, { achievedPerS: 200 }),
          ],
          confirmation: null,
          sloLines: ['p99 < 100ms'],
        }),
      { concurrency: 8, ratePerS: 199, slo: ['p99 < 100ms', 'rate_limited < 1%'] },
    ],
    [
      'a replay: speeds, calls per second at the answer, the client-rate line',
      () =>
        record({
          replayPerSpeed: 20.123,
          end: end(1.4, 1.5, 'client quota'),
          steps: [
            judged('search', 1.4),
            judged('search', 1.5, ['client quota', 'busiest client <= its quota'], { quota: QUOTA }),
          ],
        }),
      {
        speed: 1.4,
        ratePerS: 28.172,
        atLeast: true,
        limitedBy: 'client quota',
        slo: ['p99 < 100ms', 'achieved >= 99% of offered', 'rate_limited < 1%', 'busiest client <= its quota'],
      },
    ],
  ])('%s', (_, build, expected) => {
    const r = build();
    expect(r).toMatchObject(expected);
    expect(r.bracket[0]).toBe(r.speed ?? (r.model === 'closed' ? r.concurrency : r.ratePerS));
  });

  it('gives the quota arithmetic of the step that failed at the top when the quotas limited the search', () => {
    const r = record({
      replayPerSpeed: 20.123,
      end: end(1.4, 1.5, 'client quota'),
      steps: [
        judged('search', 1, null, { quota: { ...QUOTA, heldBack: 0, busiest: { id: 'app-2', perS: 6.9 } } }),
        judged('search', 1.4),
        judged('search', 1.5, ['client quota', 'rate_limited < 1%'], { quota: QUOTA }),
      ],
    });
    expect(r.finding).toBe(
      'capacity at least 1.4× the recording (28.172 calls/s; bracket 1.4×–1.5×); limited by client quota (rate_limited < 1% failed at 1.5×: ' +
        'app-2 sends 6.9 calls/s at 1× against its quota of 10/s (100 per 10 s): at most 1.44×; 5 held back while their client backed off and 0 refused: 5.0 % of the 100 due)',
    );
  });
});

describe('a capacity step as a plan', () => {
  const base = testPlan(
    {
      scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
      phases: [{ duration: '1s', rate: 1, arrivals: 'poisson' }],
    },
    'http://127.0.0.1:1',
  );
  it.each<[string, CapacityPlan, 'search' | 'confirm', number, string[], number | null]>([
    ['a search step with a warm-up', { ...OPEN, warmUpMs: 2000 }, 'search', 3, ['step-03 warm-up', 'step-03'], null],
    ['a confirmation without one', { ...OPEN, warmUpMs: 0 }, 'confirm', 12, ['confirm-12'], null],
  ])('%s', (_, cap, kind, index, phases, scheduled) => {
    const step = stepPlan(base, cap, searchSetup({ ...base, capacity: cap }), kind, index, 40, 5000);
    expect(step.phases.map((p) => p.name)).toEqual(phases);
    expect(step.phases.every((p) => p.arrivals === 'poisson' && p.load.kind === 'rate' && p.load.fromPerS === 40)).toBe(
      true,
    );
    expect(step.def).toMatchObject({
      index,
      kind,
      load: 40,
      phase: phases.at(-1),
      holdMs: 5000,
      warmUpMs: cap.warmUpMs,
    });
    expect(step.scheduledPerS).toBe(scheduled);
    expect(step.plan.phases).toEqual(step.phases);
  });

  it('a closed-model step holds virtual users', () => {
    const cap = { ...CLOSED, warmUpMs: 0 };
    const step = stepPlan(base, cap, searchSetup({ ...base, capacity: cap }), 'search', 1, 8, 1000);
    expect(step.phases[0]!.load).toEqual({ kind: 'concurrency', vus: 8 });
  });
});
