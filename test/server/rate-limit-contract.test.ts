import { describe, expect, it } from 'vitest';
import { burst, call, sleep, startTestServer, tally, tokenFor } from '../support/server-helpers.ts';

// Deliberately at the real contract (100 requests per 10 s, the defaults): about 10 s.
describe('rate limit at the real contract: 100 per 10 s (defaults)', () => {
  it(
    'admits exactly 100, refuses the 101st with Retry-After ≤ 10 s, and gives exactly 100 again after it',
    { timeout: 25_000 },
    async () => {
      const server = await startTestServer();
      const token = await tokenFor(server.url, 'client-a');
      expect(tally(await burst(server.url, 'ping', token, 100))).toEqual({ 200: 100 });
      const refused = await call(server.url, 'echo', token, { n: 101 });
      expect([refused.status, refused.json]).toEqual([429, { status: 'error', error: 'rate_limit_exceeded' }]);
      const retryAfterS = Number(refused.headers['retry-after']);
      expect(Number.isInteger(retryAfterS) && retryAfterS >= 1 && retryAfterS <= 10).toBe(true);
      await sleep(retryAfterS * 1000);
      expect(tally(await burst(server.url, 'ping', token, 101))).toEqual({ 200: 100, 429: 1 });
      expect(server.stats().byClient['client-a']).toEqual({ admitted: 200, refused: 2 });
    },
  );
});
