import { describe, expect, it } from 'vitest';
import { startLoad, waitUntilEpoch } from '../../src/session/load.ts';
import { testPlan } from '../support/load-run.ts';
import { startTestServer } from '../support/server-helpers.ts';

describe('--start-at', () => {
  it('fetches tokens first, then starts the clock at the agreed wall-clock instant', { timeout: 40_000 }, async () => {
    const server = await startTestServer({ clientPattern: { prefix: 'c-', secret: 's' } });
    const plan = testPlan(
      {
        clients: { pattern: 'c-{n}', count: 2, secret: 's' },
        scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
        phases: [{ name: 'load', duration: '300ms', rate: 20 }],
      },
      server.url,
    );
    for (const workers of [1, 2]) {
      const at = Date.now() + 3000;
      const load = startLoad(
        { ...plan, target: server.url },
        { workers, signal: new AbortController().signal, startAtEpochMs: at },
      );
      const finished = await load.finished();
      expect(finished.status).toBe('completed');
      // Never before the instant (tokens and connections were ready long before it on a quiet
      // machine); after it only by what a starved CI machine needed to get ready.
      expect(load.clock.originEpochMs).toBeGreaterThanOrEqual(at - 1);
      expect(load.clock.originEpochMs - at).toBeLessThan(10_000);
      expect(Object.values(finished.data.tokens.outcomes).reduce((a, b) => a + b, 0)).toBe(2);
    }
  });

  it('a wait for the start ends on abort, and at once for an instant already past', async () => {
    const abort = new AbortController();
    const began = Date.now();
    setTimeout(() => abort.abort(), 50);
    await waitUntilEpoch(Date.now() + 3_600_000, abort.signal);
    expect(Date.now() - began).toBeLessThan(1000);
    const past = Date.now();
    await waitUntilEpoch(past - 5000, new AbortController().signal);
    expect(Date.now() - past).toBeLessThan(100);
  });
});
