import { describe, expect, it } from 'vitest';
import type { LimiterAlgorithm } from '../../src/server/options.ts';
import { createLimiter, retryAfterSeconds } from '../../src/server/limiter/create-limiter.ts';

/** One request of a scripted run: when it arrives and what the limiter must say. */
type Step = readonly [atMs: number, admitted: boolean, retryAfterMs?: number];

/** Run a script against a fresh limiter (limit 3 per 1000 ms, one key) and check every verdict. */
function play(algorithm: LimiterAlgorithm, steps: readonly Step[], countRefused = false): void {
  const limiter = createLimiter(algorithm, { limit: 3, windowMs: 1000, countRefused });
  for (const [atMs, admitted, retryAfterMs] of steps) {
    const decision = limiter.decide('client-a', atMs);
    expect({ atMs, admitted: decision.admitted, retryAfterMs: decision.retryAfterMs }).toEqual({
      atMs,
      admitted,
      retryAfterMs: retryAfterMs ?? 0,
    });
  }
}

describe('limiters (limit 3 per 1000 ms, injected clock)', () => {
  it.each<[string, LimiterAlgorithm, Step[]]>([
    // window starts at the first request (100), so it resets at 1100, not at 1000
    [
      'fixed: a window from the first request',
      'fixed',
      [
        [100, true],
        [200, true],
        [300, true],
        [400, false, 700],
        [1099, false, 1],
        [1100, true],
        [1101, true],
        [1102, true],
        [1103, false, 997],
      ],
    ],
    [
      'fixed: an idle gap starts a fresh window',
      'fixed',
      [
        [0, true],
        [5000, true],
        [5001, true],
        [5002, true],
        [5003, false, 997],
      ],
    ],
    // aligned: resets at multiples of 1000 whenever the first request came
    [
      'fixed-aligned: resets at the wall-clock boundary',
      'fixed-aligned',
      [
        [100, true],
        [200, true],
        [300, true],
        [400, false, 600],
        [999, false, 1],
        [1000, true],
        [1001, true],
        [1002, true],
        [1003, false, 997],
      ],
    ],
    // sliding: each admitted request frees its slot exactly 1000 ms later
    [
      'sliding: slots free one by one',
      'sliding',
      [
        [0, true],
        [400, true],
        [800, true],
        [900, false, 100],
        [1000, true],
        [1001, false, 399],
        [1400, true],
        [1401, false, 399],
      ],
    ],
    // sliding at 2x rate: never more than 3 in any 1000 ms
    [
      'sliding: a boundary burst is refused',
      'sliding',
      [
        [990, true],
        [991, true],
        [992, true],
        [1000, false, 990],
        [1989, false, 1],
        [1990, true],
      ],
    ],
    // token bucket: full at start, 3 per 1000 ms refill = 1 token per 333.3 ms
    [
      'token-bucket: refills continuously',
      'token-bucket',
      [
        [0, true],
        [0, true],
        [0, true],
        [0, false, 334],
        [334, true],
        [334, false, 333],
      ],
    ],
    // the over-admission the verifier must catch: 3 at the end of one window + refills
    [
      'token-bucket: over-admits within one window',
      'token-bucket',
      [
        [0, true],
        [0, true],
        [0, true],
        [334, true],
        [667, true],
        [999, false, 2],
      ],
    ],
  ])('%s', (_name, algorithm, steps) => play(algorithm, steps));

  it.each<[string, LimiterAlgorithm, Step[]]>([
    // each refusal restarts the window: the retry at 500 moves the reset from 1100 to 1500, and
    // so on, until the client stays silent for a whole window
    [
      'fixed: retrying pushes the reset',
      'fixed',
      [
        [0, true],
        [0, true],
        [0, true],
        [100, false, 1000],
        [500, false, 1000],
        [1100, false, 1000],
        [2100, true],
      ],
    ],
    // waiting out the announced Retry-After (sending nothing) is admitted
    [
      'fixed: waiting it out is admitted',
      'fixed',
      [
        [0, true],
        [0, true],
        [0, true],
        [100, false, 1000],
        [1100, true],
      ],
    ],
    // refused requests carry over: 3 admitted + 3 refused = one more full window of debt, and the
    // retry at 1500 leaves one request of debt for the window after
    [
      'fixed-aligned: the debt carries into the next window',
      'fixed-aligned',
      [
        [0, true],
        [0, true],
        [0, true],
        [10, false, 990],
        [20, false, 980],
        [30, false, 1970],
        [1500, false, 500],
        [2000, true],
      ],
    ],
    // refused times join the log: at 1000, when the first three expire, the retries still fill it
    [
      'sliding: refusals join the log',
      'sliding',
      [
        [0, true],
        [0, true],
        [0, true],
        [100, false, 900],
        [200, false, 800],
        [300, false, 800],
        [1000, false, 200],
        [1200, true],
      ],
    ],
    // refusals drain the bucket below zero, so the refill takes longer with every retry
    [
      'token-bucket: refusals drain into debt',
      'token-bucket',
      [
        [0, true],
        [0, true],
        [0, true],
        [0, false, 667],
        [0, false, 1000],
        [999, false, 335],
        [1999, true],
      ],
    ],
  ])('count-refused — %s', (_name, algorithm, steps) => play(algorithm, steps, true));

  it.each<[string, LimiterAlgorithm]>([
    ['fixed', 'fixed'],
    ['fixed-aligned', 'fixed-aligned'],
    ['sliding', 'sliding'],
    ['token-bucket', 'token-bucket'],
  ])('%s: keys are independent, and idle keys are forgotten by sweep', (_name, algorithm) => {
    const limiter = createLimiter(algorithm, { limit: 1, windowMs: 1000 });
    expect(limiter.decide('a', 0).admitted).toBe(true);
    expect(limiter.decide('a', 1).admitted).toBe(false);
    expect(limiter.decide('b', 2).admitted).toBe(true); // another key has its own quota
    limiter.sweep(500);
    expect(limiter.size).toBe(2); // still inside their windows
    limiter.sweep(5000);
    expect(limiter.size).toBe(0); // idle: as if never seen
    expect(limiter.decide('a', 5001).admitted).toBe(true);
  });

  it('check then record (the racy-counter split) over-admits what decide refuses', () => {
    const limiter = createLimiter('fixed', { limit: 2, windowMs: 1000 });
    const verdicts = [0, 1, 2].map(() => limiter.check('k', 0)); // all checked before any is counted
    for (const verdict of verdicts) if (verdict.admitted) limiter.record('k', 0, true);
    expect(verdicts.filter((v) => v.admitted)).toHaveLength(3);
    expect(limiter.decide('k', 1).admitted).toBe(false);
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    [1, 'ceil', 1], // any wait rounds up to a whole second
    [999, 'ceil', 1],
    [1000, 'ceil', 1],
    [1001, 'ceil', 2], // waiting 1 s would be 1 ms early
    [9_700, 'ceil', 10],
    [0, 'ceil', 1], // a refusal never says 0
    [1001, 'floor', 1], // the retry-after-floor fault: 1 ms early
    [999, 'floor', 0], // …and it can even say 0
  ] as const)('%d ms (%s) → %d s', (ms, rounding, seconds) => expect(retryAfterSeconds(ms, rounding)).toBe(seconds));
});
