import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { CapacityStepDefinition } from '../../src/contract/live-view.ts';
import { Recorder } from '../../src/metrics/recorder.ts';
import type { RecorderDimensions } from '../../src/metrics/sample.ts';
import { parseThreshold } from '../../src/profile/thresholds.ts';
import { busiestAtOne, quotaUseText, type QuotaUse } from '../../src/session/capacity/client-quota.ts';
import {
  CLIENT_RATE_LINE,
  judgeStep,
  type StepRules,
  type StepSchedule,
} from '../../src/session/capacity/judge-step.ts';
import { skippedInHold } from '../../src/session/capacity/hold-skips.ts';
import { buildRunResult } from '../../src/session/result/build-result.ts';
import { sample } from '../support/recorder-fixtures.ts';

const DIMS: RecorderDimensions = {
  methods: ['ping'],
  phases: ['step-01 warm-up', 'step-01'],
  clients: ['app-1', 'app-2'],
};
/** A step at 2× a 10 calls/s recording: 1 s warm-up, 2 s hold. */
const DEF: CapacityStepDefinition = {
  index: 1,
  kind: 'search',
  model: 'open',
  load: 2,
  phase: 'step-01',
  warmUpPhase: 'step-01 warm-up',
  warmUpMs: 1000,
  holdMs: 2000,
};
const RULES: StepRules = {
  slo: [parseThreshold('p99 < 500ms')],
  include429: false,
  maxLagMs: 20,
  quota: { limit: 10, windowMs: 2000 },
  perClientQuota: true,
};

/**
 * A step's recorded data: `perClientPerS` calls per second of each client over the 3 s (warm-up
 * and hold), answered in 5 ms; the hold's `refused` first calls refused with 429.
 */
function stepData(perClientPerS: readonly number[], refused = 0) {
  const recorder = new Recorder(DIMS, { rateLimit: { ...RULES.quota!, policy: 'honour' } });
  let refusedLeft = refused;
  perClientPerS.forEach((perS, clientIndex) => {
    for (let sentAtMs = 0; sentAtMs < 3000; sentAtMs += 1000 / perS) {
      const inHold = sentAtMs >= 1000;
      const no = inHold && refusedLeft-- > 0;
      recorder.record(
        sample({
          clientIndex,
          phaseIndex: inHold ? 1 : 0,
          sentAtMs,
          doneAtMs: sentAtMs + 5,
          latencyUs: 5000,
          serviceUs: 4900,
          lagUs: 100,
          status: no ? 429 : 200,
          outcome: no ? 'error:rate_limit_exceeded' : 'success',
          retryAfterS: no ? 1 : -1,
        }),
      );
    }
  });
  return recorder.serialize();
}

function judge(
  perClientPerS: readonly number[],
  schedule: Partial<StepSchedule>,
  options: { refused?: number; rules?: Partial<StepRules> } = {},
) {
  const data = stepData(perClientPerS, options.refused);
  const run = {
    id: 't',
    kind: 'capacity' as const,
    profile: 'p',
    startedAt: new Date(0).toISOString(),
    endedAt: new Date(3000).toISOString(),
    status: 'completed' as const,
    target: 'http://127.0.0.1:1',
    embeddedTarget: false,
    model: 'open' as const,
    workers: 1,
    shards: 1,
    node: process.version,
    host: hostname(),
  };
  const stepResult = buildRunResult({ run, config: {}, data, dims: DIMS, checks: [], thresholds: [], warnings: [] });
  return judgeStep(DEF, { ...RULES, ...options.rules }, data, stepResult, {
    skippedInHold: {},
    scheduledPerS: null,
    ...schedule,
  });
}

describe('judging a capacity step', () => {
  it.each<
    [
      string,
      readonly number[],
      Partial<StepSchedule>,
      { refused?: number; rules?: Partial<StepRules> },
      string,
      string | null,
    ]
  >([
    ['every call sent and answered, each client within its quota', [4, 4], {}, {}, 'pass', null],
    [
      'calls held back while their client backed off are the quota’s, not the server’s throughput',
      [4, 4],
      { skippedInHold: { 'client backing off': 6 } },
      {},
      'client quota',
      'rate_limited < 1%',
    ],
    ['429s in the hold', [4, 4], {}, { refused: 2 }, 'client quota', 'rate_limited < 1%'],
    [
      'a client faster than its quota, before any refusal (a step shorter than the window)',
      [8, 2],
      {},
      {},
      'client quota',
      CLIENT_RATE_LINE,
    ],
    [
      'a client faster than its quota, searched past the quotas',
      [8, 2],
      {},
      { rules: { include429: true } },
      'pass',
      null,
    ],
    [
      'arrivals skipped for another reason fail the throughput',
      [4, 4],
      { skippedInHold: { 'max in-flight reached': 4 } },
      {},
      'throughput',
      'achieved >= 99% of offered',
    ],
  ])('%s → %s', (_, rates, schedule, options, limit, decidedBy) => {
    const judged = judge(rates, schedule, options);
    expect([judged.limit ?? 'pass', judged.record.decidedBy]).toEqual([limit, decidedBy]);
    expect(judged.record.verdict).toBe(limit === 'pass' ? 'pass' : 'fail');
  });

  it('offers the schedule’s rate: the same at the same speed, whatever was skipped in the warm-up', () => {
    const scheduledPerS = 2 * 10;
    const a = judge([4, 4], { scheduledPerS });
    const b = judge([4, 4], {
      scheduledPerS,
      skippedInHold: skippedInHold({ 'client backing off': 40 }, { 'client backing off': 40 }),
    });
    expect([a.record.offeredPerS, b.record.offeredPerS]).toEqual([20, 20]);
    // Without a schedule (a synthetic load): the hold's calls and skips per second.
    expect(judge([4, 4], { skippedInHold: { 'max in-flight reached': 4 } }).record.offeredPerS).toBe(10);
  });

  it('keeps the quota arithmetic of the step for the finding', () => {
    const judged = judge([8, 2], { skippedInHold: { 'client backing off': 3 } }, { refused: 1 });
    expect(judged.quota).toMatchObject({
      limit: 10,
      windowS: 2,
      refused: 1,
      heldBack: 3,
      busiest: { id: 'app-1', perS: 8 },
    });
    expect(quotaUseText(judged.quota!, DEF.load)).toBe(
      'app-1 sends 4 calls/s at 1× against its quota of 5/s (10 per 2 s): at most 1.25×; ' +
        '3 held back while their client backed off and 1 refused: 17.4 % of the 23 due',
    );
  });
});

describe('the hold’s skips', () => {
  it.each([
    [
      { 'client backing off': 10, 'max in-flight reached': 2 },
      { 'client backing off': 4 },
      { 'client backing off': 6, 'max in-flight reached': 2 },
    ],
    [{ 'client backing off': 4 }, { 'client backing off': 4 }, {}],
    [{ a: 1 }, {}, { a: 1 }],
  ])('%j less the warm-up’s %j → %j', (step, warmUp, hold) => {
    expect(skippedInHold(step, warmUp)).toEqual(hold);
  });
});

describe('the quota arithmetic', () => {
  const use = (busiest: number, stopped = 0): QuotaUse => ({
    limit: 100,
    windowS: 10,
    due: 100,
    refused: stopped,
    heldBack: 0,
    busiest: { id: 'app-1', perS: busiest },
  });
  it.each<[string, QuotaUse, number | null, ReturnType<typeof busiestAtOne>, string]>([
    [
      'a replay, measured in the step itself',
      use(13.6),
      2,
      null,
      'app-1 sends 6.8 calls/s at 1× against its quota of 10/s (100 per 10 s): at most 1.47×',
    ],
    [
      'a replay, its rate at 1× from a step that lost nothing',
      use(11, 5),
      2,
      { id: 'app-1', perS: 6.8 },
      'app-1 sends 6.8 calls/s at 1× against its quota of 10/s (100 per 10 s): at most 1.47×; 0 held back while their client backed off and 5 refused: 5.0 % of the 100 due',
    ],
    [
      'a synthetic load over its quota',
      use(12),
      null,
      null,
      'app-1 sent 12 requests/s against its quota of 10/s (100 per 10 s)',
    ],
    ['nothing to say but the quota', { ...use(0), busiest: null }, null, null, 'quota 10/s (100 per 10 s) per client'],
  ])('%s', (_, quota, speed, atOne, text) => {
    expect(quotaUseText(quota, speed, atOne)).toBe(text);
  });

  it('takes the busiest client’s rate at 1× from the steps whose quotas stopped nothing', () => {
    const steps = [
      { load: 1, quota: use(6.5) },
      { load: 2, quota: use(12, 4) },
      { load: 1.5, quota: use(10.2) },
      { load: 3, quota: null },
    ];
    expect(busiestAtOne(steps)).toEqual({ id: 'app-1', perS: 6.8 });
    expect(busiestAtOne([{ load: 2, quota: use(12, 4) }])).toBeNull();
  });
});
