import { describe, expect, it } from 'vitest';
import { paddedBody } from '../../src/verify/checks/payload-limit.ts';
import { burstConcurrency } from '../../src/verify/checks/ratelimit-threshold.ts';

describe('procedure helpers', () => {
  it.each([2, 9, 14, 100_000, 100_001, 102_400])(
    'paddedBody(%d) is a JSON object of exactly that many bytes',
    (bytes) => {
      const body = paddedBody(bytes);
      expect(Buffer.byteLength(body)).toBe(bytes);
      expect(typeof JSON.parse(body)).toBe('object');
    },
  );

  it.each([
    // loopback: one at a time (exact counts, no race)
    [100, 1, 1],
    // 10 ms round trips: 4 in flight keep 100 requests near 250 ms
    [100, 10, 4],
    // a slow link: capped
    [100, 80, 8],
    // a small limit never needs more than one
    [10, 20, 1],
  ])('burstConcurrency(limit %d, rtt %d ms) = %d', (limit, rttMs, expected) => {
    expect(burstConcurrency(limit, rttMs)).toBe(expected);
  });
});
