import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_LIFETIME_S, refreshDelayMs, tokenLifetimeNotice } from '../../src/api/token-lifetime.ts';

describe('refreshDelayMs', () => {
  it.each([
    // expires_in (s), margin (s) → refresh after (ms)
    [3600, 30, 2_880_000], // the margin early, but no later than at 80 %
    [100, 30, 70_000], // the margin early
    [40, 30, 10_000], // a quarter of the lifetime at least
    [35, 30, 8750],
    [30, 30, 15_000], // within the margin: at half the lifetime (once: "now", every request)
    [20, 30, 10_000],
    [3, 2, 1000],
    [1, 30, 1000], // never sooner than once a second
    [0.2, 30, 1000],
    [1e12, 30, MAX_TOKEN_LIFETIME_S * 800], // clamped to a week (once: a 1 ms overflow timer)
  ])('expires_in %d s, margin %d s → %d ms', (expiresInS, marginS, expectedMs) => {
    expect(refreshDelayMs(expiresInS, marginS)).toBe(expectedMs);
  });
});

describe('tokenLifetimeNotice', () => {
  it('says nothing about an ordinary lifetime, and names short, margin-sized and absurd ones', () => {
    expect(tokenLifetimeNotice(3600, 30)).toBeNull();
    expect(tokenLifetimeNotice(31, 30)).toBeNull();
    expect(tokenLifetimeNotice(20, 30)).toMatch(/within the 30 s refresh margin/);
    expect(tokenLifetimeNotice(0.5, 30)).toMatch(/expire after 0\.5 s, faster than they can be used/);
    expect(tokenLifetimeNotice(1e12, 30)).toMatch(/claim expires_in 1000000000000 s: treated as 604800 s/);
  });
});
