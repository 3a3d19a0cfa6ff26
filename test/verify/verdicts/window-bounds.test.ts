import { describe, expect, it } from 'vitest';
import {
  announcedResetMs,
  boundaryMayFallInside,
  mayStraddleAfterReset,
  resetLowerBoundMs,
  tooSlowToJudge,
} from '../../../src/verify/verdicts/window-bounds.ts';
import { admitted, ex } from '../../support/round-trips.ts';

describe('window bounds from Retry-After', () => {
  it.each([
    // aligned 1 s window: burst 995–1010, refusal says 1 s: the boundary at 1000 may be inside
    ['aligned straddle at 1 s windows', 995, ex(1010, 'refused', { retryAfterS: 1 }), 1000, true],
    // 10 s window, refusal 100 ms into a fresh window says 10 s: the previous boundary may be the burst start
    ['per-client window starting with the burst', 0, ex(100, 'refused', { retryAfterS: 10 }), 10_000, true],
    // 10 s window, Retry-After 1 s: the previous boundary was ~9 s before the burst
    ['boundary long before the burst', 0, ex(100, 'refused', { retryAfterS: 1 }), 10_000, false],
    // no Retry-After: nothing rules a boundary out
    ['Retry-After missing', 0, ex(100, 'refused', { retryAfterS: null }), 10_000, true],
  ] as const)('boundaryMayFallInside: %s', (_name, firstSentMs, refusal, windowMs, expected) => {
    expect(boundaryMayFallInside(firstSentMs, refusal, windowMs)).toBe(expected);
  });

  it.each([
    // a 100 ms burst right after a 10 s window's reset cannot reach the next boundary
    ['short burst, 10 s window', 10_200, ex(100, 'refused', { retryAfterS: 10 }), 10_000, false],
    // at 1 s windows Retry-After's whole seconds leave the next boundary anywhere in the burst
    ['1 s window', 1_020, ex(10, 'refused', { retryAfterS: 1 }), 1000, true],
    // a burst running past the earliest reset + window
    ['burst longer than the window', 20_500, ex(100, 'refused', { retryAfterS: 10 }), 10_000, true],
  ] as const)('mayStraddleAfterReset: %s', (_name, endMs, refusal, windowMs, expected) => {
    expect(mayStraddleAfterReset(endMs, refusal, windowMs)).toBe(expected);
  });

  it.each([
    // honest ceil: the reset is later than send + RA − 1 s
    [ex(100, 'refused', { retryAfterS: 10 }), 9100],
    // RA 0 (floored): not before the refusal itself
    [ex(100, 'refused', { retryAfterS: 0 }), 100],
    // missing: not before the refusal
    [ex(100, 'refused', { retryAfterS: null }), 100],
  ] as const)('resetLowerBoundMs(%j) = %d', (refusal, expected) => {
    expect(resetLowerBoundMs(refusal)).toBe(expected);
  });

  it('announces the reset from receipt, or a window later without Retry-After', () => {
    expect(announcedResetMs(ex(100, 'refused', { retryAfterS: 3, doneMs: 105 }), 10_000)).toBe(3105);
    expect(announcedResetMs(ex(100, 'refused', { retryAfterS: null, doneMs: 105 }), 10_000)).toBe(10_105);
  });

  it.each([
    // 25 without a refusal within 250 ms: more than two windows could admit
    [admitted(25, 0, 10), null],
    // 25 without a refusal over 2.4 s: they may span 4 windows of 1 s
    [admitted(25, 0, 100), /25 requests took 2401 ms to send, so they may span 4 windows of 1000 ms/],
    // refused after 11, the first 11 sent within 110 ms: judged
    [[...admitted(11, 0, 10), ex(110, 'refused')], null],
    // refused after 11, but the 11th went 1 s after the first: it may be in a new window
    [[...admitted(11, 0, 100), ex(1100, 'refused')], /11 requests took 1000 ms/],
  ] as const)('tooSlowToJudge %#', (roundTrips, expected) => {
    const why = tooSlowToJudge(roundTrips, 10, 1000);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toMatch(expected);
  });
});
