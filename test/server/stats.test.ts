import { describe, expect, it } from 'vitest';
import { call, rawRoundTrip, requestToken, send, startTestServer, tokenFor } from '../support/server-helpers.ts';

describe('stats()', () => {
  it('matches what was sent: requests, tokens, per-client verdicts, statuses', async () => {
    const server = await startTestServer({ limit: 3, windowMs: 60_000 });
    expect(server.stats()).toEqual({ requests: 0, tokensIssued: 0, byClient: {}, byStatus: {} });
    const [a, b] = [await tokenFor(server.url, 'client-a'), await tokenFor(server.url, 'client-b')]; // 2 × 200
    await requestToken(server.url, { grant_type: 'client_credentials', client_id: 'client-a', client_secret: 'wrong' }); // 401
    for (let i = 0; i < 5; i++) await call(server.url, 'ping', a); // 3 × 200, 2 × 429
    await call(server.url, 'nope', b); // 404, admitted
    await call(server.url, 'ping', undefined); // 401, not a verdict
    await send(`${server.url}/elsewhere`, { method: 'GET' }); // 404
    await rawRoundTrip(server.port, 'NOT HTTP\r\n\r\n'); // 400 from the parser
    const stats = server.stats();
    expect(stats).toEqual({
      requests: 12,
      tokensIssued: 2,
      byClient: { 'client-a': { admitted: 3, refused: 2 }, 'client-b': { admitted: 1, refused: 0 } },
      byStatus: { 200: 5, 400: 1, 401: 2, 404: 2, 429: 2 },
    });
    // a detached copy: later traffic does not change it
    await call(server.url, 'ping', b);
    expect(stats.requests).toBe(12);
    expect(server.stats().requests).toBe(13);
  });
});
