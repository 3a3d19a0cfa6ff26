import { describe, expect, it } from 'vitest';
import type { LimiterAlgorithm } from '../../src/server/options.ts';
import {
  burst,
  call,
  sleep,
  startTestServer,
  tally,
  tokenFor,
  withRoomInAlignedWindow,
} from '../support/server-helpers.ts';

// Counting tests use long windows, so that a slow machine cannot roll a window over mid-test
// (resets are in rate-limit-windows.test.ts).
const LONG_MS = 60_000;

describe('rate limit at 10 per window, over HTTP', () => {
  it.each<[LimiterAlgorithm]>([['fixed'], ['fixed-aligned'], ['sliding'], ['token-bucket']])(
    '%s: from idle, exactly the limit is admitted, the next is refused with a proper 429',
    async (algorithm) => {
      // fixed-aligned resets on the wall clock: use 10 s windows and start early in one
      const windowMs = algorithm === 'fixed-aligned' ? 10_000 : LONG_MS;
      const server = await startTestServer({ limit: 10, windowMs, algorithm });
      const token = await tokenFor(server.url, 'client-a');
      if (algorithm === 'fixed-aligned') await withRoomInAlignedWindow(windowMs, 3000);
      expect(tally(await burst(server.url, 'ping', token, 10))).toEqual({ 200: 10 });
      const refused = await call(server.url, 'ping', token);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(windowMs / 1000);
      expect(refused.headers['content-type']).toBe('application/json');
      expect(refused.json).toEqual({ status: 'error', error: 'rate_limit_exceeded' });
      expect(server.stats().byClient['client-a']).toEqual({ admitted: 10, refused: 1 });
    },
  );

  it('token-bucket refills continuously and so admits more than the limit within one window', async () => {
    const server = await startTestServer({ limit: 10, windowMs: 10_000, algorithm: 'token-bucket' });
    const token = await tokenFor(server.url, 'client-a');
    const startedMs = Date.now();
    const first = tally(await burst(server.url, 'ping', token, 10));
    await sleep(3000); // ~3 tokens back (1 per second)
    const second = tally(await burst(server.url, 'ping', token, 10));
    expect(Date.now() - startedMs).toBeLessThan(10_000); // all of it inside one window…
    expect(first).toEqual({ 200: 10 });
    expect(second['200']).toBeGreaterThanOrEqual(2);
    expect(second['200']).toBeLessThanOrEqual(6);
    expect(first['200']! + second['200']!).toBeGreaterThan(10); // …and more than the limit admitted
  });

  it('the quota is per client ID: shared by all of its tokens, separate from other clients', async () => {
    const server = await startTestServer({ limit: 10, windowMs: LONG_MS });
    const [a1, a2, b] = await Promise.all([
      tokenFor(server.url, 'client-a'),
      tokenFor(server.url, 'client-a'),
      tokenFor(server.url, 'client-b'),
    ]);
    expect(tally([...(await burst(server.url, 'ping', a1, 6)), ...(await burst(server.url, 'ping', a2, 6))])).toEqual({
      200: 10,
      429: 2,
    });
    expect(tally(await burst(server.url, 'ping', b, 10))).toEqual({ 200: 10 });
    expect(server.stats().byClient).toEqual({
      'client-a': { admitted: 10, refused: 2 },
      'client-b': { admitted: 10, refused: 0 },
    });
  });

  it('one quota across all methods', async () => {
    const server = await startTestServer({ limit: 10, windowMs: LONG_MS });
    const token = await tokenFor(server.url, 'client-a');
    expect(tally(await burst(server.url, 'ping', token, 5))).toEqual({ 200: 5 });
    expect(tally(await burst(server.url, 'echo', token, 5))).toEqual({ 200: 5 });
    expect((await call(server.url, 'items.list', token)).status).toBe(429);
  });
});
