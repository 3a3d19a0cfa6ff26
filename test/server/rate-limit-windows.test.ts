import { describe, expect, it } from 'vitest';
import type { LimiterAlgorithm } from '../../src/server/options.ts';
import {
  burst,
  call,
  sleep,
  startTestServer,
  tally,
  tokenFor,
  untilWallClock,
  withRoomInAlignedWindow,
} from '../support/server-helpers.ts';

// Resets and window shapes need short windows; each test leaves hundreds of ms of margin around
// the instants it relies on, so a loaded machine does not flip a verdict.

describe('rate-limit windows and resets, over HTTP', () => {
  it.each<[LimiterAlgorithm]>([['fixed'], ['fixed-aligned'], ['sliding']])(
    '%s at 10 per 2 s: waiting out Retry-After gives a fresh quota of exactly the limit',
    async (algorithm) => {
      const server = await startTestServer({ limit: 10, windowMs: 2000, algorithm });
      const token = await tokenFor(server.url, 'client-a');
      if (algorithm === 'fixed-aligned') await withRoomInAlignedWindow(2000, 1200);
      await burst(server.url, 'ping', token, 10);
      const refused = await call(server.url, 'ping', token);
      expect(refused.headers['retry-after']).toMatch(/^[12]$/);
      await sleep(Number(refused.headers['retry-after']) * 1000);
      expect(tally(await burst(server.url, 'ping', token, 11))).toEqual({ 200: 10, 429: 1 });
    },
  );

  it('Retry-After is rounded up: waiting one second less is still refused, waiting it out is not', async () => {
    const server = await startTestServer({ limit: 10, windowMs: 2500 });
    const token = await tokenFor(server.url, 'client-a');
    await burst(server.url, 'ping', token, 10);
    const refused = await call(server.url, 'ping', token);
    const retryAfterS = Number(refused.headers['retry-after']);
    expect(retryAfterS).toBe(3); // ~2.4 s to wait, rounded up
    await sleep((retryAfterS - 1) * 1000);
    const early = await call(server.url, 'ping', token);
    expect([early.status, early.headers['retry-after']]).toEqual([429, '1']);
    await sleep(1000);
    expect((await call(server.url, 'ping', token)).status).toBe(200);
  });

  it('fixed resets a window after the first request; fixed-aligned at the wall-clock boundary', async () => {
    const fixed = await startTestServer({ limit: 10, windowMs: 2000, algorithm: 'fixed' });
    const aligned = await startTestServer({ limit: 10, windowMs: 2000, algorithm: 'fixed-aligned' });
    const [fixedToken, alignedToken] = await Promise.all([
      tokenFor(fixed.url, 'client-a'),
      tokenFor(aligned.url, 'client-a'),
    ]);
    await untilWallClock(1100, 2000); // both first windows start ~900 ms before a wall-clock boundary
    await Promise.all([burst(fixed.url, 'ping', fixedToken, 10), burst(aligned.url, 'ping', alignedToken, 10)]);
    await untilWallClock(100, 2000); // past the boundary, ~1 s after the first requests
    expect((await call(aligned.url, 'ping', alignedToken)).status).toBe(200);
    expect((await call(fixed.url, 'ping', fixedToken)).status).toBe(429);
  });

  it('sliding counts the last window exactly; fixed forgets the previous window', async () => {
    const options = { limit: 10, windowMs: 3000 } as const;
    const fixed = await startTestServer({ ...options, algorithm: 'fixed' });
    const sliding = await startTestServer({ ...options, algorithm: 'sliding' });
    const [fixedToken, slidingToken] = await Promise.all([
      tokenFor(fixed.url, 'client-a'),
      tokenFor(sliding.url, 'client-a'),
    ]);
    // 5 at t0, 5 at t0+1.5 s; at t0+3.7 s the first five have left the last 3 s, the others not
    await Promise.all([burst(fixed.url, 'ping', fixedToken, 5), burst(sliding.url, 'ping', slidingToken, 5)]);
    await sleep(1500);
    await Promise.all([burst(fixed.url, 'ping', fixedToken, 5), burst(sliding.url, 'ping', slidingToken, 5)]);
    await sleep(2200);
    expect(tally(await burst(fixed.url, 'ping', fixedToken, 10))).toEqual({ 200: 10 });
    expect(tally(await burst(sliding.url, 'ping', slidingToken, 10))).toEqual({ 200: 5, 429: 5 });
  });
});
