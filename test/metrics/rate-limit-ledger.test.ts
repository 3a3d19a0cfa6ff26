import { describe, expect, it } from 'vitest';
import type { LedgerClientData, LedgerData } from '../../src/metrics/ledger-data.ts';
import { MAX_PERIODS_PER_CLIENT } from '../../src/metrics/ledger-data.ts';
import { MAX_FAILING_WINDOW_READINGS_AFTER, MAX_WINDOW_READINGS } from '../../src/metrics/announced-windows.ts';
import { readWindow, type WindowReading, type WindowReadingKind } from '../../src/metrics/window-reading.ts';
import { createLimiter, retryAfterSeconds } from '../../src/server/limiter/create-limiter.ts';
import type { LimiterAlgorithm } from '../../src/server/options.ts';
import { mergeLedgerData } from '../../src/metrics/ledger-merge.ts';
import { RateLimitLedger } from '../../src/metrics/rate-limit-ledger.ts';
import { passiveRateLimitChecks } from '../../src/verify/passive/rate-limit-verdicts.ts';
import type { Sample } from '../../src/metrics/sample.ts';
import type { RateLimitContract } from '../../src/contract/rate-limit.ts';
import { sample } from '../support/recorder-fixtures.ts';

const LIMIT = 10;
const WINDOW_MS = 10_000;
const PLAN: RateLimitContract = { limit: LIMIT, windowMs: WINDOW_MS, policy: 'honour' };
const CLIENTS = ['a', 'b'];

/** A client's burst from idle: `admitted` requests pass, then `refused` get 429 (Retry-After 7), 10 ms apart. */
function burst(admitted: number, refused = 3, clientIndex = 0, startMs = 0): Sample[] {
  return Array.from({ length: admitted + refused }, (_, i) =>
    sample({
      clientIndex,
      sentAtMs: startMs + i * 10,
      doneAtMs: startMs + i * 10 + 5,
      status: i < admitted ? 200 : 429,
      outcome: i < admitted ? 'success' : 'error:rate_limit_exceeded',
      retryAfterS: i < admitted ? -1 : 7,
    }),
  );
}

function ledgerOf(samples: readonly Sample[], plan: RateLimitContract = PLAN): LedgerData {
  const ledger = new RateLimitLedger(CLIENTS, plan);
  for (const s of samples) ledger.record(s);
  return ledger.serialize()!;
}

const verdicts = (data: LedgerData) => Object.fromEntries(passiveRateLimitChecks(data).map((c) => [c.id, c]));

/**
 * A greedy client against one of the reference server's limiters (pure, on a simulated clock):
 * a request every `spacingMs`, answered 2 ms later; honouring a 429 means sending next at its
 * receipt + Retry-After. The limiter may be configured off the contract (limit ± 1) or with a
 * rounding fault; `phaseMs` shifts the run against the clock (what a clock-aligned window sees).
 */
function greedyRun(o: {
  algorithm: LimiterAlgorithm;
  limit?: number;
  windowMs?: number;
  spacingMs: number;
  durationMs: number;
  policy?: 'honour' | 'ignore';
  rounding?: 'ceil' | 'floor';
  countRefused?: boolean;
  phaseMs?: number;
  /** Requests the limiter saw before the run (an earlier run with the same client ID), `gapMs` before its first. */
  before?: { requests: number; spacingMs: number; gapMs: number };
}): Sample[] {
  const windowMs = o.windowMs ?? WINDOW_MS;
  const limiter = createLimiter(o.algorithm, {
    limit: o.limit ?? LIMIT,
    windowMs,
    countRefused: o.countRefused ?? false,
  });
  const before = o.before ?? { requests: 0, spacingMs: 0, gapMs: 0 };
  for (let i = 0; i < before.requests; i++) limiter.decide('a', (o.phaseMs ?? 0) + i * before.spacingMs + 1);
  // The run's clock starts after the earlier traffic: the limiter's clock is shifted by it.
  const phase = (o.phaseMs ?? 0) + (before.requests > 0 ? (before.requests - 1) * before.spacingMs + before.gapMs : 0);
  const samples: Sample[] = [];
  for (let t = 0; t < o.durationMs;) {
    const decision = limiter.decide('a', phase + t + 1);
    const retryAfterS = decision.admitted ? -1 : retryAfterSeconds(decision.retryAfterMs, o.rounding);
    samples.push(
      sample({
        sentAtMs: t,
        doneAtMs: t + 2,
        status: decision.admitted ? 200 : 429,
        outcome: decision.admitted ? 'success' : 'error:rate_limit_exceeded',
        retryAfterS,
      }),
    );
    t =
      !decision.admitted && (o.policy ?? 'honour') === 'honour'
        ? Math.max(t + o.spacingMs, t + 2 + retryAfterS * 1000)
        : t + o.spacingMs;
  }
  return samples;
}

const thresholdOf = (samples: readonly Sample[], plan: RateLimitContract = PLAN) => {
  const check = passiveRateLimitChecks(ledgerOf(samples, plan))[0]!;
  expect(check.id).toBe('ratelimit.threshold');
  expect(check.detail).not.toContain('\n');
  return check;
};

describe('passive ratelimit.threshold: the windows the server announced', () => {
  // 2.5 × the quota of 10 per 10 s: a request every 400 ms.
  const GREEDY = { spacingMs: 400, durationMs: 60_000 };
  it.each([
    ['per-client fixed window', { algorithm: 'fixed' }, 'pass'],
    ['sliding log', { algorithm: 'sliding' }, 'pass'],
    ['clock-aligned window, run starting mid-window', { algorithm: 'fixed-aligned', phaseMs: 7_300 }, 'pass'],
    ['clock-aligned window, run starting at a boundary', { algorithm: 'fixed-aligned', phaseMs: 0 }, 'pass'],
    [
      'Retry-After rounded down (that is retry_after_honoured’s business)',
      { algorithm: 'fixed', rounding: 'floor' },
      'pass',
    ],
    ['limit + 1 per window', { algorithm: 'fixed', limit: LIMIT + 1 }, 'fail'],
    ['limit − 1 per window', { algorithm: 'fixed', limit: LIMIT - 1 }, 'fail'],
    ['token bucket', { algorithm: 'token-bucket' }, 'fail'],
    ['per-client fixed window, 429 policy ignore', { algorithm: 'fixed', policy: 'ignore' }, 'pass'],
    // (At a send period that divides the window, every window would start at the same phase: a clock-aligned limiter could not be told apart.)
    [
      'limit + 1, 429 policy ignore',
      { algorithm: 'fixed', limit: LIMIT + 1, policy: 'ignore', spacingMs: 370 },
      'fail',
    ],
    ['token bucket, 429 policy ignore', { algorithm: 'token-bucket', policy: 'ignore' }, 'fail'],
  ] as const)('%s → %s', (_, limiter, verdict) => {
    const check = thresholdOf(greedyRun({ ...GREEDY, ...limiter }));
    expect(check.verdict, `${check.detail} ${JSON.stringify(check.evidence)}`).toBe(verdict);
    const evidence = check.evidence as {
      windows: number;
      examples: { resetFromMs: number; resetToMs: number; admittedMax: number }[];
    };
    expect(evidence.windows).toBeGreaterThanOrEqual(4);
    expect(evidence.examples[0]!.resetToMs).toBeGreaterThanOrEqual(evidence.examples[0]!.resetFromMs);
  });

  // Nightly jobs run steps back to back with the same client IDs: the window a run starts in may
  // hold the previous step's requests, which the run never saw. A correct limiter never fails then.
  const ALGORITHMS = [['fixed'], ['fixed-aligned'], ['sliding']] as const;
  const EARLIER = [
    ['a few requests just before', { requests: 3, spacingMs: 100, gapMs: 50 }],
    ['most of the quota 2 s before', { requests: 8, spacingMs: 100, gapMs: 2_000 }],
    ['the quota used up (a verify run)', { requests: 30, spacingMs: 50, gapMs: 100 }],
    ['the quota used up 7 s before', { requests: 30, spacingMs: 50, gapMs: 7_000 }],
  ] as const;
  const RUNS = [
    ['a short greedy run', { spacingMs: 400, durationMs: 12_000 }],
    ['a long greedy run', { spacingMs: 400, durationMs: 60_000 }],
    ['a fast run', { spacingMs: 37, durationMs: 25_000 }],
  ] as const;
  describe.each(ALGORITHMS)('%s limiter, after an earlier run', (algorithm) => {
    it.each(EARLIER.flatMap(([earlier, before]) => RUNS.map(([run, shape]) => [earlier, run, before, shape] as const)))(
      '%s, then %s: never fails',
      (_, __, before, shape) => {
        for (const phaseMs of [0, 3_700, 8_100]) {
          const check = thresholdOf(greedyRun({ algorithm, ...shape, before, phaseMs }));
          expect(check.verdict, `phase ${phaseMs}: ${check.detail} ${JSON.stringify(check.evidence)}`).not.toBe('fail');
        }
      },
    );
  });

  it.each([
    ['limit + 1', LIMIT + 1, /within less than one window .* no clock-aligned window explains them all/],
    ['limit − 1', LIMIT - 1, /refused after at most 9 admitted in the announced window/],
  ] as const)('%s after an earlier run: still fails on the windows wholly inside the run', (_, limit, detail) => {
    for (const [, before] of EARLIER) {
      const check = thresholdOf(greedyRun({ algorithm: 'fixed', limit, ...GREEDY, before }));
      expect([check.verdict, check.detail]).toEqual(['fail', expect.stringMatching(detail)]);
    }
  });

  it('over-admission no earlier request explains still fails in the first window', () => {
    // A token bucket's first burst: far more than the limit before the announced reset, earlier traffic or not.
    const check = thresholdOf(
      greedyRun({ algorithm: 'token-bucket', ...GREEDY, before: { requests: 3, spacingMs: 100, gapMs: 50 } }),
    );
    expect(check.verdict).toBe('fail');
    const data = ledgerOf(
      greedyRun({ algorithm: 'token-bucket', ...GREEDY, before: { requests: 3, spacingMs: 100, gapMs: 50 } }),
    );
    const first = data.clients.a!.windows[0]!;
    expect([first.mayBeginBeforeRun, readWindow(first, LIMIT, WINDOW_MS)]).toEqual([true, 'over']);
  });

  it.each<[string, Partial<WindowReading>, WindowReadingKind]>([
    ['fewer than the limit, the window inside the run', { admittedMax: 7 }, 'early'],
    [
      'fewer than the limit, the window may have begun before the run',
      { admittedMax: 7, mayBeginBeforeRun: true },
      'before_run',
    ],
    [
      'surely over, the window may have begun before the run',
      { admittedMin: 11, admittedMax: 12, mayBeginBeforeRun: true },
      'over',
    ],
    ['exactly the limit, the window may have begun before the run', { mayBeginBeforeRun: true }, 'exact'],
    [
      'over within a window since a readmission',
      { admittedMaxAfterRefusal: 11, sinceReset: 15, sinceResetSpanMs: 8_000 },
      'over_unless_aligned',
    ],
    [
      'over within a window since the first request of the run',
      { admittedMaxAfterRefusal: 11, sinceReset: 15, sinceResetSpanMs: 8_000, sinceFirstRequest: true },
      'before_run',
    ],
    [
      'over but over more than a window',
      { admittedMaxAfterRefusal: 11, sinceReset: 15, sinceResetSpanMs: 12_000 },
      'inconclusive',
    ],
  ])('readWindow: %s → %s', (_, fields, kind) => {
    const window: WindowReading = {
      refusedAtMs: 5_000,
      refusals: 1,
      retryAfterS: 5,
      resetFromMs: 9_000,
      resetToMs: 10_000,
      admittedMin: 9,
      admittedMax: 10,
      admittedMaxAfterRefusal: 10,
      withinLimitFromMs: null,
      sinceReset: 10,
      sinceResetSpanMs: 4_000,
      anchoredOnLast: false,
      open: false,
      refusedAfterAnnouncedReset: 0,
      readmittedAfterAnnouncedReset: true,
      mayBeginBeforeRun: false,
      sinceFirstRequest: false,
      ...fields,
    };
    expect(readWindow(window, LIMIT, WINDOW_MS)).toBe(kind);
  });

  it.each([
    ['a window wholly inside the run: refused early', true, 'early'],
    ['a window that may have begun before the client’s first request: not judged', false, 'before_run'],
  ] as const)('%s', (_, sentBefore, kind) => {
    // 10 per 10 s: 9 admitted from 4 s, then a refusal whose Retry-After puts the reset 13–14 s in
    // (the window 3–4 s in); with or without a first request at 0 s, before that window.
    const admitted = (sentAtMs: number) => sample({ sentAtMs, doneAtMs: sentAtMs + 2 });
    const samples = [
      ...(sentBefore ? [admitted(0)] : []),
      ...Array.from({ length: LIMIT - 1 }, (_, i) => admitted(4_000 + i * 100)),
      sample({ sentAtMs: 5_000, doneAtMs: 5_002, status: 429, outcome: 'error:rate_limit_exceeded', retryAfterS: 9 }),
      admitted(14_100),
    ];
    const window = ledgerOf(samples).clients.a!.windows[0]!;
    expect([window.mayBeginBeforeRun, readWindow(window, LIMIT, WINDOW_MS)]).toEqual([!sentBefore, kind]);
    expect(thresholdOf(samples).verdict).toBe(kind === 'early' ? 'fail' : 'skip');
  });

  it('admissions still in flight when the refusal was sent may have been decided after the reset: never counted over', () => {
    // A clock-aligned limiter, 10 per 2 s, boundaries at 0, 2 s, 4 s. Window [2 s, 4 s) admits ten
    // (2050–2950 ms) and refuses at 3900 ms; two requests sent just before it (3850, 3880 ms) reach a
    // loaded server after the boundary and are admitted in the next window, completing after the refusal.
    const plan = { limit: LIMIT, windowMs: 2000, policy: 'honour' } as const;
    const at = (sentAtMs: number, doneAtMs = sentAtMs + 5) => sample({ sentAtMs, doneAtMs });
    const refused = (sentAtMs: number, retryAfterS: number) =>
      sample({ sentAtMs, doneAtMs: sentAtMs + 5, status: 429, outcome: 'error:rate_limit_exceeded', retryAfterS });
    const samples = [
      ...Array.from({ length: LIMIT }, (_, i) => at(100 + i * 100)),
      refused(1100, 1),
      ...Array.from({ length: LIMIT }, (_, i) => at(2050 + i * 100)),
      at(3850, 4015),
      at(3880, 4015),
      refused(3900, 1),
      at(4300),
    ].sort((a, b) => a.doneAtMs - b.doneAtMs);
    const check = thresholdOf(samples, plan);
    expect(check.verdict, `${check.detail} ${JSON.stringify(check.evidence)}`).not.toBe('fail');
    expect(ledgerOf(samples, plan).clients.a!.windows[1]!.sinceReset).toBe(LIMIT);
  });

  it('limit + 1: every window reads one over, and no clock-aligned phase explains them all', () => {
    const check = thresholdOf(greedyRun({ algorithm: 'fixed', limit: LIMIT + 1, ...GREEDY }));
    expect(check.detail).toMatch(
      /admitted 11 within less than one window .* no clock-aligned window explains them all/,
    );
  });

  it('limit − 1: refused with at most 9 in the announced window', () => {
    const check = thresholdOf(greedyRun({ algorithm: 'fixed', limit: LIMIT - 1, ...GREEDY }));
    expect(check.detail).toMatch(/refused after at most 9 admitted in the announced window \(limit 10\)/);
  });

  it('token bucket: the first burst holds far more than the limit before the announced reset', () => {
    const check = thresholdOf(greedyRun({ algorithm: 'token-bucket', ...GREEDY }));
    expect(check.detail).toMatch(
      /held (1[1-9]|2\d)(–\d+)? admitted requests before the reset their Retry-After announced/,
    );
  });

  it('one reading per announced window, every window of the run', () => {
    const data = ledgerOf(greedyRun({ algorithm: 'fixed', ...GREEDY }));
    // 10 admitted in 4 s, then the rest of the window refused: one window every 10 s (and a bit).
    expect(data.clients.a!.windows.length).toBeGreaterThanOrEqual(5);
    expect(data.clients.a!.windows.every((w) => w.admittedMax === LIMIT)).toBe(true);
  });

  it('at a short window the rounding of Retry-After can cover both readings: then it says by how much', () => {
    // 10 per 1 s at a request every 40 ms with 429 policy honour: Retry-After is always 1 s, a whole window.
    const plan = { limit: LIMIT, windowMs: 1000, policy: 'honour' } as const;
    const check = thresholdOf(
      greedyRun({ algorithm: 'fixed', limit: LIMIT + 1, windowMs: 1000, spacingMs: 40, durationMs: 2_500 }),
      plan,
    );
    expect([check.verdict, check.detail]).toEqual([
      'skip',
      expect.stringMatching(/^inconclusive: .* up to 1 over the limit/),
    ]);
  });

  it('a 401 is not a quota hit, a transport failure may have been counted', () => {
    const samples = greedyRun({ algorithm: 'fixed', ...GREEDY });
    const withFailures = samples.map((s, i) =>
      i === 3 ? { ...s, status: 0, outcome: 'transport:UND_ERR_SOCKET' } : s,
    );
    expect(thresholdOf([sample({ sentAtMs: 0, status: 401, outcome: 'http:401' }), ...samples]).verdict).toBe('pass');
    expect(thresholdOf(withFailures).verdict).not.toBe('fail');
  });

  it('an admission in flight while the refusal came back may have been decided after the reset: never surely inside', () => {
    // Clock-aligned reset at 10 s: 10 admitted, a refusal 50 ms before the boundary, and one request
    // sent meanwhile that reached the server after the boundary (admitted in the next window).
    const admitted = (sentAtMs: number, doneAtMs = sentAtMs + 5) => sample({ sentAtMs, doneAtMs });
    const samples = [
      ...Array.from({ length: LIMIT }, (_, i) => admitted(9000 + i * 90)),
      sample({ sentAtMs: 9950, doneAtMs: 9955, status: 429, outcome: 'error:rate_limit_exceeded', retryAfterS: 1 }),
      admitted(9952, 10_010),
      admitted(10_955),
    ];
    const window = ledgerOf(samples).clients.a!.windows[0]!;
    expect([window.admittedMin, window.admittedMax]).toEqual([LIMIT, LIMIT + 1]);
    expect(thresholdOf(samples).verdict).not.toBe('fail');
  });

  it('a Retry-After of 0 (rounded down) names no reset before the refusal: the window is not slid back onto the previous one', () => {
    // 10 per 2 s, per-client fixed windows [0, 2 s) and [2 s, 4 s); three admissions late in the
    // first, ten early in the second, then one refusal 500 ms before the reset, its Retry-After
    // rounded down to 0. Read as rounded up, the reset would lie by the refusal and its window
    // would take in the first window's last three: 13 "surely inside" (a CI run once failed so).
    const plan = { limit: LIMIT, windowMs: 2000, policy: 'honour' } as const;
    const admitted = (sentAtMs: number) => sample({ sentAtMs, doneAtMs: sentAtMs + 2 });
    const samples = [
      ...[0, 100, 200, 300, 400, 500, 600, 1850, 1900, 1950].map(admitted),
      ...Array.from({ length: LIMIT }, (_, i) => admitted(2000 + i * 100)),
      sample({ sentAtMs: 3500, doneAtMs: 3502, status: 429, outcome: 'error:rate_limit_exceeded', retryAfterS: 0 }),
      admitted(4100),
    ];
    const window = ledgerOf(samples, plan).clients.a!.windows[0]!;
    expect(window.anchoredOnLast).toBe(true);
    expect(window.resetToMs).toBeGreaterThanOrEqual(4000); // the true reset
    expect(window.admittedMin).toBeLessThanOrEqual(LIMIT);
    expect(thresholdOf(samples, plan).verdict).not.toBe('fail');
  });

  it('counts by send time, not completion time', () => {
    const samples = greedyRun({ algorithm: 'fixed', ...GREEDY });
    expect(
      thresholdOf([...samples].reverse().sort((a, b) => (a.status === 429 ? -1 : 0) - (b.status === 429 ? -1 : 0)))
        .verdict,
    ).not.toBe('fail');
    expect(
      thresholdOf(samples.map((s) => ({ ...s, doneAtMs: s.status === 429 ? s.doneAtMs : s.sentAtMs + 300 }))).verdict,
    ).toBe('pass');
  });

  it('skips with a reason when no client was refused', () => {
    const check = thresholdOf(burst(LIMIT, 0));
    expect([check.verdict, check.detail]).toEqual(['skip', expect.stringMatching(/no client was refused/)]);
  });

  it('keeps the readings bounded over a long run', () => {
    const data = ledgerOf(greedyRun({ algorithm: 'fixed', spacingMs: 400, durationMs: 2_000_000 }));
    expect(data.clients.a!.windows.length).toBeLessThanOrEqual(MAX_WINDOW_READINGS + MAX_FAILING_WINDOW_READINGS_AFTER);
    expect(data.clients.a!.windowsDropped).toBeGreaterThan(100);
  });
});

describe('passive ratelimit.retry_after_honoured', () => {
  const refusal = sample({
    sentAtMs: 1000,
    doneAtMs: 1010,
    status: 429,
    outcome: 'error:rate_limit_exceeded',
    retryAfterS: 2,
  });
  const retry = (waitedMs: number, status: number, retryAfterS = 2) =>
    sample({
      sentAtMs: 1010 + waitedMs,
      doneAtMs: 1020 + waitedMs,
      status,
      outcome: status === 200 ? 'success' : status === 429 ? 'error:rate_limit_exceeded' : 'transport:UND_ERR_SOCKET',
      backoffWaitedMs: waitedMs,
      backoffRetryAfterS: retryAfterS,
      retryAfterS: status === 429 ? 1 : -1,
    });

  it.each([
    ['every honoured retry admitted → pass', [retry(2000, 200), retry(2003, 200)], 'pass'],
    ['refused after waiting its full Retry-After → fail', [retry(2000, 200), retry(2001, 429)], 'fail'],
    ['refused after waiting less than the Retry-After is not evidence → skip', [retry(1500, 429)], 'skip'],
    ['a retry that failed in transit is not evidence → skip', [retry(2000, 0)], 'skip'],
    ['a retry after a 429 without Retry-After has nothing to honour → skip', [retry(2000, 200, -1)], 'skip'],
  ] as const)('%s', (_, retries, verdict) => {
    const check = verdicts(ledgerOf([refusal, ...retries]))['ratelimit.retry_after_honoured']!;
    expect(check.verdict).toBe(verdict);
    const evidence = check.evidence as {
      admitted: number;
      refused: number;
      refusals: { retryAfterS: number; waitedMs: number }[];
    };
    expect(evidence.admitted).toBe(retries.filter((r) => r.status === 200 && r.backoffRetryAfterS >= 0).length);
    if (verdict === 'fail') {
      const refused = retries.filter((r) => r.status === 429);
      expect(evidence.refused).toBe(refused.length);
      expect(evidence.refusals.map((r) => [r.retryAfterS, r.waitedMs])).toEqual(
        refused.map((r) => [r.backoffRetryAfterS, r.backoffWaitedMs]),
      );
      expect(check.detail).toContain(`Retry-After ${refused[0]!.backoffRetryAfterS} s`);
    }
  });

  it('says why when the policy is ignore', () => {
    const data = ledgerOf([refusal, sample({ sentAtMs: 1020 })], { ...PLAN, policy: 'ignore' });
    const check = passiveRateLimitChecks(data)[1]!;
    expect([check.verdict, check.detail]).toEqual([
      'skip',
      'the run never sent a request after a reset a Retry-After announced (429 policy: ignore)',
    ]);
  });

  it.each([
    ['a conformant limiter', { algorithm: 'fixed' }, 'pass'],
    ['Retry-After rounded down', { algorithm: 'fixed', rounding: 'floor' }, 'skip'],
    [
      'refused requests counted (the reset moves while the client sends)',
      { algorithm: 'fixed', countRefused: true },
      'skip',
    ],
  ] as const)('429 policy ignore, %s: judged from the announced windows → %s', (_, limiter, verdict) => {
    const data = ledgerOf(greedyRun({ ...limiter, policy: 'ignore', spacingMs: 370, durationMs: 60_000 }), {
      ...PLAN,
      policy: 'ignore',
    });
    const check = passiveRateLimitChecks(data)[1]!;
    expect(check.verdict, check.detail).toBe(verdict);
    if (verdict === 'skip') expect(check.detail).toMatch(/^inconclusive: .* still refused/);
  });

  it('records where in the window the honoured refusal had come', () => {
    const data = ledgerOf([refusal, retry(2000, 200)]);
    const observation = data.clients.a!.observations.find((o) => o.kind === 'honoured_retry')!;
    expect(observation.detail).toMatchObject({
      retryAfterS: 2,
      waitedMs: 2000,
      admitted: true,
      refusalAtMs: 1010,
      refusalPeriodOffsetMs: 1010 % WINDOW_MS,
    });
  });
});

describe('RateLimitLedger', () => {
  it.each([
    ['absent', -1],
    ['unparseable', -2],
  ] as const)('observes a 429 with an %s Retry-After', (key, retryAfterS) => {
    const data = ledgerOf([sample({ status: 429, outcome: 'http:429', retryAfterS, doneAtMs: 12 })]);
    const client = data.clients.a!;
    expect([client.retryAfterS, client.missingRetryAfter]).toEqual([{ [key]: 1 }, 1]);
    expect(client.observations).toEqual([
      { client: 'a', kind: 'missing_retry_after', atMs: 12, detail: { retryAfter: key, outcome: 'http:429' } },
    ]);
  });

  it('counts admitted and refused per window aligned to run start, only windows with traffic', () => {
    const sends = [100, 9_999, 10_000, 35_000, 35_001];
    const data = ledgerOf(
      sends.map((t, i) =>
        sample({ sentAtMs: t, doneAtMs: t + 1, status: i % 2 ? 429 : 200, retryAfterS: i % 2 ? 1 : -1 }),
      ),
    );
    const expected = new Map<number, { admitted: number; refused: number }>();
    sends.forEach((t, i) => {
      const p = expected.get(Math.floor(t / WINDOW_MS)) ?? { admitted: 0, refused: 0 };
      expected.set(
        Math.floor(t / WINDOW_MS),
        i % 2 ? { ...p, refused: p.refused + 1 } : { ...p, admitted: p.admitted + 1 },
      );
    });
    expect(data.clients.a!.periods).toEqual([...expected].map(([index, c]) => ({ index, ...c })));
  });

  it('caps periods per client and says so, while totals stay complete', () => {
    const windows = MAX_PERIODS_PER_CLIENT + 20;
    const data = ledgerOf(Array.from({ length: windows }, (_, i) => sample({ sentAtMs: i * WINDOW_MS })));
    const client = data.clients.a!;
    expect([client.periods.length, client.periodsTruncated, client.admitted]).toEqual([
      MAX_PERIODS_PER_CLIENT,
      true,
      windows,
    ]);
  });

  it('caps observations per client and kind', () => {
    const data = ledgerOf(Array.from({ length: 50 }, (_, i) => sample({ sentAtMs: i, status: 429, retryAfterS: -1 })));
    expect(data.clients.a!.observations.length).toBeLessThan(50);
    expect(data.clients.a!.missingRetryAfter).toBe(50);
  });

  it('merges counters per client exactly; a client split over parts has its announced windows withheld', () => {
    const samples = [
      ...burst(LIMIT + 1, 4, 0),
      ...burst(LIMIT, 2, 1, 50),
      sample({ sentAtMs: 25_000, doneAtMs: 25_001 }),
    ];
    const whole = ledgerOf(samples);
    const halves = [ledgerOf(samples.filter((_, i) => i % 2 === 0)), ledgerOf(samples.filter((_, i) => i % 2 === 1))];
    const merged = mergeLedgerData(halves)!;
    const comparable = (c: LedgerClientData) => ({
      ...c,
      observations: c.observations.length,
      windows: [],
      windowsWithheld: false,
    });
    expect(Object.fromEntries(Object.entries(merged.clients).map(([id, c]) => [id, comparable(c)]))).toEqual(
      Object.fromEntries(Object.entries(whole.clients).map(([id, c]) => [id, comparable(c)])),
    );
    expect(Object.values(merged.clients).map((c) => [c.windows.length, c.windowsWithheld])).toEqual([
      [0, true],
      [0, true],
    ]);
    expect(passiveRateLimitChecks(merged)[0]!.detail).toMatch(/split over several parts/);
    // Parts that each hold whole clients (worker threads) keep every window.
    const byClient = mergeLedgerData([
      ledgerOf(samples.filter((s) => s.clientIndex === 0)),
      ledgerOf(samples.filter((s) => s.clientIndex === 1)),
    ])!;
    expect(passiveRateLimitChecks(byClient)).toEqual(passiveRateLimitChecks(whole));
    expect(mergeLedgerData([null, null])).toBeNull();
  });

  it('without a contract keeps only the live counters and serializes to null', () => {
    const ledger = new RateLimitLedger(CLIENTS, null);
    ledger.record(sample({ status: 429, retryAfterS: 4, doneAtMs: 9 }));
    expect(ledger.serialize()).toBeNull();
    expect(ledger.client(0)).toMatchObject({ sent: 1, refused: 1, lastRetryAfterS: 4, lastRetryAfterAtMs: 9 });
    expect(ledger.admittedInWindow(0, 10)).toBe(0);
  });
});
