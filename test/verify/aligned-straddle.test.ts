import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdentityDispatchers } from '../../src/api/undici-agents.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { ratelimitThreshold } from '../../src/verify/checks/ratelimit-threshold.ts';
import { ClientPool } from '../../src/verify/client-pool.ts';
import { systemClock } from '../../src/verify/clock.ts';
import { CheckContext } from '../../src/verify/check-context.ts';
import { TokenBook } from '../../src/verify/tokens.ts';
import { configFor, SHORT } from '../support/verify-reference.ts';

/**
 * A clock-aligned window that resets in the middle of the idle burst admits more than the limit
 * without being wrong: ratelimit.threshold must recognise it and judge the burst after the reset.
 * The burst is started a few ms before a wall-clock boundary of the server's windows.
 */
describe('ratelimit.threshold against a clock-aligned window resetting mid-burst', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await startServer({ ...SHORT, algorithm: 'fixed-aligned' });
  });
  afterAll(() => server.close());

  async function thresholdJustBeforeBoundary(
    clientId: string,
    leadMs: number,
  ): Promise<{ verdict: string; detail: string; idleAdmitted: number }> {
    const config = configFor(server);
    const dispatchers = new IdentityDispatchers({ connections: null }, new Map());
    try {
      const tokens = new TokenBook(config, dispatchers, systemClock);
      await tokens.get(clientId);
      const pool = new ClientPool([clientId], SHORT.limit, SHORT.windowMs, systemClock);
      const session = new CheckContext({
        config,
        dispatchers,
        signer: null,
        clock: systemClock,
        tokens,
        pool,
        signal: new AbortController().signal,
      });
      const boundary = Math.ceil((Date.now() + 100) / SHORT.windowMs) * SHORT.windowMs;
      await sleep(boundary - Date.now() - 20);
      while (Date.now() < boundary - leadMs) {
        // spin the last milliseconds: a timer could fire late and miss the boundary
      }
      const outcome = await ratelimitThreshold.run(session, [clientId]);
      const bursts = outcome.evidence.bursts as { admitted: number }[];
      return { verdict: outcome.verdict, detail: outcome.detail, idleAdmitted: bursts[0]!.admitted };
    } finally {
      await dispatchers.close();
    }
  }

  it('passes, having seen (and set aside) the straddled burst', async () => {
    const attempts = [];
    // How far into the burst the boundary falls depends on the machine's speed (a burst beside other
    // test files can take tens of ms to go out): start a little earlier each time, with a fresh
    // client, until one burst straddles it.
    const leadsMs = [3, 6, 10, 15, 25, 40, 60, 90];
    for (const [clientId, leadMs] of leadsMs.map((lead, i) => [`client-${i + 1}`, lead] as const)) {
      const attempt = await thresholdJustBeforeBoundary(clientId, leadMs);
      attempts.push(attempt);
      expect(attempt.verdict, attempt.detail).toBe('pass');
      if (attempt.idleAdmitted > SHORT.limit) break;
    }
    expect(
      attempts.some((a) => a.idleAdmitted > SHORT.limit),
      JSON.stringify(attempts),
    ).toBe(true);
  });
});
