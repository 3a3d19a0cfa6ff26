import { describe, expect, it } from 'vitest';
import {
  judgeRetryAfterHonoured,
  type HonourObservation,
} from '../../../src/verify/verdicts/ratelimit-retry-after-honoured.ts';
import { ex } from '../../support/round-trips.ts';

// Right after exhaustion: refused at 100 saying 10 s, admitted at 10 101 ms.
const early = { exhaustedAtMs: 100, refusal: ex(100, 'refused', { retryAfterS: 10 }), probe: ex(10_101, 'admitted') };
// Later in the window: the accuracy probe at 9 s was refused with 1 s left, admitted after it.
const late = {
  exhaustedAtMs: 10_200,
  refusal: ex(19_201, 'refused', { retryAfterS: 1 }),
  probe: ex(20_202, 'admitted'),
};
const observe = (overrides: Partial<HonourObservation>): HonourObservation => ({
  samples: [early, late],
  slack: { refusal: ex(10_200, 'refused', { retryAfterS: 10 }), probe: late.refusal },
  strict: false,
  problem: null,
  ...overrides,
});

describe('judgeRetryAfterHonoured', () => {
  it.each([
    // two moments, both admitted; the early probe was refused: no slack
    [
      'conformant',
      observe({}),
      'pass',
      /at 2 moments \(Retry-After 10 s 0 ms into the throttle, Retry-After 1 s 9001 ms into the throttle\)/,
    ],
    // rounded down: 9 s said, still refused at 9 s
    [
      'floored Retry-After',
      observe({
        samples: [
          { ...early, refusal: ex(100, 'refused', { retryAfterS: 9 }), probe: ex(9102, 'refused', { retryAfterS: 1 }) },
        ],
      }),
      'fail',
      /waited Retry-After 9 s from receipt \(101 ms\), sending nothing; the request at 9102 ms was still refused \(Retry-After now 1\)/,
    ],
    // Retry-After 0 on a refusal that is not over
    [
      'Retry-After 0',
      observe({
        samples: [
          { ...early, refusal: ex(100, 'refused', { retryAfterS: 0 }), probe: ex(102, 'refused', { retryAfterS: 0 }) },
        ],
      }),
      'fail',
      /waited Retry-After 0 s/,
    ],
    // nothing to honour: see ratelimit.response
    [
      'Retry-After missing',
      observe({
        samples: [{ ...early, refusal: ex(100, 'refused', { retryAfterS: null }), probe: null }],
        slack: null,
      }),
      'skip',
      /no usable Retry-After/,
    ],
    // only one moment sampled
    ['one moment', observe({ samples: [early], slack: null }), 'skip', /sampled at only 1 moment/],
    // slack: admitted a second early; informational…
    [
      'slack, informational',
      observe({ slack: { refusal: ex(10_200, 'refused', { retryAfterS: 10 }), probe: ex(19_201, 'admitted') } }),
      'pass',
      /at 2 moments/,
    ],
    // … unless --strict-retry-after
    [
      'slack, strict',
      observe({
        strict: true,
        slack: { refusal: ex(10_200, 'refused', { retryAfterS: 10 }), probe: ex(19_201, 'admitted') },
      }),
      'fail',
      /--strict-retry-after: admitted 1 s before Retry-After 10 ran out/,
    ],
    // a server that never refuses
    [
      'no refusal',
      observe({
        samples: [],
        slack: null,
        problem: { kind: 'no-refusal', detail: 'no refusal after 205 requests sent back to back' },
      }),
      'fail',
      /no refusal after 205/,
    ],
  ] as const)('%s', (_name, observation, verdict, detail) => {
    const result = judgeRetryAfterHonoured(observation);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('reports Retry-After accuracy as a note', () => {
    expect(judgeRetryAfterHonoured(observe({})).notes).toEqual([
      'Retry-After accuracy: a probe 1 s before Retry-After 10 ran out was refused: no slack beyond rounding',
    ]);
    expect(judgeRetryAfterHonoured(observe({ slack: null })).notes).toEqual([
      'Retry-After accuracy: not probed (needs a Retry-After of 2 s or more)',
    ]);
  });
});
