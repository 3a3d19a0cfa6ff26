import { describe, expect, it } from 'vitest';
import type { RoundTrip } from '../../../src/verify/round-trip.ts';
import { burstIsAmbiguous, judgeThreshold, nextBurst } from '../../../src/verify/verdicts/ratelimit-threshold.ts';
import type { BurstRecord, ThresholdObservation } from '../../../src/verify/verdicts/threshold-records.ts';
import { admitted, ex, refused } from '../../support/round-trips.ts';

/** A burst of `n` admissions 1 ms apart from `fromMs`, ended by a refusal announcing `retryAfterS`. */
function burst(
  kind: BurstRecord['kind'],
  fromMs: number,
  n: number,
  retryAfterS: number | null,
  options: { polls?: RoundTrip[]; concurrency?: number; stepMs?: number } = {},
): BurstRecord {
  const step = options.stepMs ?? 1;
  return {
    kind,
    roundTrips: [
      ...(options.polls ?? []),
      ...admitted(n, fromMs, step),
      ex(fromMs + n * step, 'refused', { retryAfterS }),
    ],
    concurrency: options.concurrency ?? 1,
    stop: 'refused',
  };
}

/** Load every `intervalMs` from `fromMs` to `untilMs`: admitted when `open(t)`, else refused with `retryAfterS(t)`. */
function load(
  fromMs: number,
  untilMs: number,
  intervalMs: number,
  open: (t: number) => boolean,
  retryAfterS: (t: number) => number | null = () => 1,
): ThresholdObservation['load'] {
  const roundTrips: RoundTrip[] = [];
  for (let t = fromMs; t <= untilMs; t += intervalMs)
    roundTrips.push(open(t) ? ex(t, 'admitted') : ex(t, 'refused', { retryAfterS: retryAfterS(t) }));
  return { intervalMs, roundTrips };
}

/** Admitted in the first half of each window starting at `resetMs` (2× load over a fixed window of `limit`). */
const fixedWindowFrom = (resetMs: number, windowMs: number) => (t: number) =>
  t >= resetMs && (t - resetMs) % windowMs < windowMs / 2;

const L = 10;
const W = 1000;

const cases: [string, ThresholdObservation, 'pass' | 'fail' | 'skip', RegExp][] = [
  [
    // per-client fixed window: 10 from idle, 10 after the reset, load refused until the window of the second burst ends
    'per-client fixed window',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 1), burst('reset', 1011, 10, 1)],
      load: load(1022, 2300, 50, fixedWindowFrom(2011, W)),
    },
    'pass',
    /exactly 10 admitted from idle and again after the announced reset/,
  ],
  [
    // clock-aligned window resetting mid-burst at 1000: 5 + 10 admitted, not judged; clean after the reset
    'aligned window straddled by the idle burst',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 995, 15, 1), burst('reset', 2011, 10, 1)],
      load: load(2022, 3300, 50, fixedWindowFrom(3000, W)),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // sliding log: the second burst's entries age out one window after they were admitted
    'sliding log',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 1), burst('reset', 1011, 10, 1)],
      load: load(1022, 2300, 50, (t) => t >= 2021),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // token bucket at 100 per 10 s: after Retry-After 1 s only ~10 refilled
    'token bucket at 100 per 10 s',
    { limit: 100, windowMs: 10_000, bursts: [burst('idle', 0, 100, 1), burst('reset', 1101, 11, 1)], load: null },
    'fail',
    /only 11 of 100 were admitted: the quota refills gradually .*token-bucket-like.*111 were admitted within 111\d ms, less than one window/,
  ],
  [
    // token bucket at 10 per 1 s: the bursts look right, but under load the quota comes back one request at a time
    'token bucket at 10 per 1 s',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 1), burst('reset', 1011, 10, 1)],
      load: load(1022, 2300, 50, (t) => Math.round((t - 1022) / 50) % 2 === 1),
    },
    'fail',
    /admitted again at \d+ ms, less than a window after the previous quota opened .* with 1\d admitted in the window before: the quota comes back gradually \(token-bucket-like\)/,
  ],
  [
    // limit + 1 at 1 s windows: every burst after a reset may have straddled, but all three admitted 11
    'limit + 1 (1 s windows)',
    {
      limit: L,
      windowMs: W,
      bursts: [
        burst('idle', 0, 11, 1),
        burst('reset', 1012, 11, 1),
        burst('reset', 2024, 11, 1),
        burst('reset', 3036, 11, 1),
      ],
      load: null,
    },
    'fail',
    /11 admitted right after a reset; the limit is 10 \(over the limit in all 3 bursts after a reset\)/,
  ],
  [
    // limit + 1 at 10 s windows: the burst after the reset is decisive
    'limit + 1 (10 s windows)',
    { limit: 100, windowMs: 10_000, bursts: [burst('idle', 0, 101, 10), burst('reset', 10_102, 101, 10)], load: null },
    'fail',
    /^101 admitted right after a reset; the limit is 100$/,
  ],
  [
    // limit − 1: refused after 9 from idle (no boundary can explain fewer)
    'limit − 1',
    { limit: L, windowMs: W, bursts: [burst('idle', 0, 9, 1), burst('reset', 1010, 9, 1)], load: null },
    'fail',
    /an idle client was refused after 9 requests; the limit is 10/,
  ],
  [
    // idle burst over the limit where no boundary fits: Retry-After 1 s of a 10 s window puts the last boundary 9 s back
    'over-admission with no boundary inside',
    { limit: 100, windowMs: 10_000, bursts: [burst('idle', 0, 105, 1), burst('reset', 1106, 100, 10)], load: null },
    'fail',
    /105 requests admitted before the first refusal; the limit is 100 \(no window boundary can have fallen inside/,
  ],
  [
    // refused requests extend the block: still refused well after the reset the first refusal announced
    'block extended by retries (count-refused)',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 1), burst('reset', 1011, 10, 1)],
      load: load(1022, 2300, 50, () => false),
    },
    'fail',
    /retrying while throttled extended the block/,
  ],
  [
    // Retry-After rounded down (0): the first request after waiting is refused; threshold still passes, with a note
    'Retry-After floored',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 0), burst('reset', 1001, 10, 0, { polls: [...refused(19, 11, 50, 0)] })],
      load: load(1012, 2300, 50, fixedWindowFrom(2001, W), () => 0),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // no Retry-After at all: the contract window is waited instead
    'Retry-After missing',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, null), burst('reset', 1011, 10, null)],
      load: load(1022, 2300, 50, fixedWindowFrom(2011, W), () => null),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // a counter racing under concurrency: 4 in flight admitted 13, one at a time exactly 10
    'concurrent idle burst over the limit, sequential one exact',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 13, 1, { concurrency: 4 }), burst('reset', 1014, 10, 1)],
      load: load(1025, 2300, 50, fixedWindowFrom(2014, W)),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // sliding log after a slow burst (700 ms): slots free one by one as its admissions age out
    'sliding log, slow burst',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 1), burst('reset', 1011, 10, 1, { stepMs: 70 })],
      load: load(
        1712,
        2900,
        50,
        (t) => (t >= 2011 && t < 2050) || (t >= 2081 && t < 2100) || (t >= 2151 && t < 2200) || t >= 2711,
      ),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // sliding log after an idle burst slower than Retry-After's rounding (1.1 s): 1 after the reset,
    // as its first admission aged out; 10 after a whole window of rest
    'sliding log, slow idle burst',
    {
      limit: L,
      windowMs: 2000,
      bursts: [burst('idle', 0, 10, 1, { stepMs: 110 }), burst('reset', 2101, 1, 1), burst('rested', 4156, 10, 2)],
      load: load(4167, 6500, 100, (t) => t >= 6156),
    },
    'pass',
    /exactly 10/,
  ],
  [
    // windows shorter than the contract's: re-admitted 5 s into a 10 s window
    'windows too short',
    {
      limit: 100,
      windowMs: 10_000,
      bursts: [burst('idle', 0, 100, 10), burst('reset', 10_101, 100, 10)],
      load: load(10_202, 20_500, 50, (t) => t >= 15_101 && t < 17_600),
    },
    'fail',
    /less than a window after the previous quota opened/,
  ],
  [
    // no refusal at all
    'no limit',
    {
      limit: L,
      windowMs: W,
      bursts: [{ kind: 'idle', roundTrips: admitted(25, 0), concurrency: 1, stop: 'cap' }],
      load: null,
    },
    'fail',
    /no refusal after 25 requests/,
  ],
  [
    // no refusal, but 25 requests took 2.4 s: this machine could not send faster than the limit
    'generator too slow',
    {
      limit: L,
      windowMs: W,
      bursts: [{ kind: 'idle', roundTrips: admitted(25, 0, 100), concurrency: 1, stop: 'cap' }],
      load: null,
    },
    'skip',
    /the generator, not the server, is the bottleneck: 25 requests took 2401 ms to send/,
  ],
  [
    // a transport error: nothing can be counted
    'transport failure',
    {
      limit: L,
      windowMs: W,
      bursts: [{ kind: 'idle', roundTrips: [...admitted(3, 0), ex(3, 'failed')], concurrency: 1, stop: 'failed' }],
      load: null,
    },
    'skip',
    /got no verdict from the limiter \(transport:ECONNRESET/,
  ],
  [
    // still refused a whole window after the announced reset
    'never re-admitted after the reset',
    {
      limit: L,
      windowMs: W,
      bursts: [
        burst('idle', 0, 10, 1),
        { kind: 'reset', roundTrips: refused(22, 1011, 50, 1), concurrency: 1, stop: 'not-readmitted' },
      ],
      load: null,
    },
    'fail',
    /not admitted again within a window after the reset announced by Retry-After 1/,
  ],
  [
    // the load stopped before the reset it had to wait for (an interrupted run)
    'load cut short',
    {
      limit: L,
      windowMs: W,
      bursts: [burst('idle', 0, 10, 1), burst('reset', 1011, 10, 1)],
      load: load(1022, 1500, 50, () => false),
    },
    'skip',
    /continued load ended .* before the reset/,
  ],
  [
    // CI, a clock-aligned window of 10 per 2 s whose boundary (300 ms) fell inside the idle burst (3
    // in flight): 10 admitted before it, 1 after. The refusal, from the old window, announced 1 s;
    // the window the burst after the reset found still held that 1, so it admitted 9. The load
    // then saw exactly 10 a window: a fixed window, not a bucket.
    'aligned window straddled by the idle burst, its excess still counted after the reset',
    {
      limit: L,
      windowMs: 2000,
      bursts: [burst('idle', 0, 11, 1, { concurrency: 3, stepMs: 30 }), burst('reset', 1338, 9, 2, { concurrency: 1 })],
      load: load(
        1348,
        3750,
        100,
        (t) => t >= 2300 && t < 3300,
        (t) => Math.ceil(((t < 2300 ? 2300 : 4300) - t) / 1000),
      ),
    },
    'pass',
    /^11 admitted from idle \(a window boundary inside the burst\) and 9 after the announced reset: short by no more than the idle burst's 1 past the limit, counted in the window after that boundary; under .* no window admitted more than 10/,
  ],
];

describe('judgeThreshold', () => {
  it.each(cases)('%s', (_name, observation, verdict, detail) => {
    const result = judgeThreshold(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('flags a gradually refilling quota for the other checks', () => {
    expect(judgeThreshold(cases[3]![1]).findings?.quotaRefillsGradually).toBe(true);
    expect(judgeThreshold(cases[4]![1]).findings?.quotaRefillsGradually).toBe(true);
    expect(judgeThreshold(cases[5]![1]).findings).toBeUndefined();
  });

  it('explains in notes what was not judged', () => {
    const straddled = judgeThreshold(cases[1]![1]);
    expect(straddled.notes?.join('\n')).toMatch(
      /idle burst admitted 15, not judged \(a window boundary may have fallen inside it\)/,
    );
    const floored = judgeThreshold(cases[10]![1]);
    expect(floored.notes?.join('\n')).toMatch(
      /19 request\(s\) right after waiting the announced Retry-After were still refused/,
    );
    expect(judgeThreshold(cases[0]![1]).evidence).toMatchObject({
      limit: 10,
      windowMs: 1000,
      bursts: [
        { kind: 'idle', admitted: 10, retryAfterS: 1 },
        { kind: 'reset', admitted: 10 },
      ],
    });
  });
});

describe('burstIsAmbiguous', () => {
  const previous = ex(10, 'refused', { retryAfterS: 1 });
  it.each([
    // over the limit with several in flight: always repeated (a race is concurrent_burst's business)
    ['concurrent over-admission', burst('reset', 1011, 12, 1, { concurrency: 4 }), previous, 1000, true],
    // at 1 s windows, Retry-After cannot rule out the next boundary
    ['1 s window, sequential', burst('reset', 1011, 11, 1), previous, 1000, true],
    // at 10 s windows a short burst right after the reset cannot straddle
    ['10 s window, sequential', burst('reset', 10_011, 101, 10), ex(10, 'refused', { retryAfterS: 10 }), 10_000, false],
    // exactly the limit is never ambiguous
    ['exact', burst('reset', 1011, 10, 1), previous, 1000, false],
  ] as const)('%s', (_name, record, prev, windowMs, expected) => {
    expect(burstIsAmbiguous(record, prev, record.kind === 'reset' && windowMs === 10_000 ? 100 : 10, windowMs)).toBe(
      expected,
    );
  });
});

describe('nextBurst', () => {
  const idle = burst('idle', 0, 10, 1);
  it.each([
    // after the idle burst: always to the reset, in parallel unless it was ambiguous
    ['after a clean idle burst', [idle], 10, 1000, { kind: 'reset', sequential: false }],
    ['after an idle burst over the limit', [burst('idle', 0, 12, 1)], 10, 1000, { kind: 'reset', sequential: true }],
    // a clean burst after the reset decides
    ['after a clean reset burst', [idle, burst('reset', 1011, 10, 1)], 10, 1000, null],
    // short after the reset, as a sliding window explains (slow idle burst): rest a whole window
    [
      'sliding shortfall',
      [burst('idle', 0, 10, 1, { stepMs: 110 }), burst('reset', 2101, 1, 1)],
      10,
      2000,
      { kind: 'rested', sequential: false },
    ],
    // short after the reset although every earlier admission had aged out: a bucket, decided
    ['bucket shortfall', [burst('idle', 0, 100, 1), burst('reset', 1101, 11, 1)], 100, 10_000, null],
  ] as const)('%s', (_name, bursts, limit, windowMs, expected) => {
    expect(nextBurst(bursts, limit, windowMs)).toEqual(expected);
  });
});
