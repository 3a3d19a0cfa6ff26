/**
 * The `ratelimit.concurrent_burst` check's procedure: 1.5 × limit requests sent at once from an
 * idle client, repeated after a reset while the result is ambiguous.
 */
import type { CheckDefinition } from '../check.ts';
import type { CheckContext } from '../check-context.ts';
import {
  concurrentAttemptIsAmbiguous,
  judgeConcurrentBurst,
  type ConcurrentAttempt,
} from '../verdicts/ratelimit-concurrent-burst.ts';
import { announcedResetMs } from '../verdicts/window-bounds.ts';

const MAX_ATTEMPTS = 3;

/**
 * Fire `size` requests at once over a pool of their own (other checks' requests must not hold
 * its connections). The connections are opened first with unauthenticated requests (a 401
 * spends no quota), so the real requests leave together over warm sockets and reach the server
 * within a millisecond or two: that is what exposes a check-then-increment race.
 */
async function burst(
  check: CheckContext,
  clientId: string,
  size: number,
  kind: ConcurrentAttempt['kind'],
): Promise<ConcurrentAttempt> {
  const method = check.config.methods[0]!;
  const dispatcher = check.run.dispatchers.create(clientId, { connections: size });
  try {
    const token = await check.run.tokens.get(clientId);
    await Promise.all(Array.from({ length: size }, () => check.call({ method, token: null, dispatcher })));
    const observed = await Promise.all(
      Array.from({ length: size }, () => check.call({ method, clientId, token, dispatcher })),
    );
    return { kind, roundTrips: observed.map((o) => o.roundTrip).sort((a, b) => a.sentMs - b.sentMs) };
  } finally {
    await dispatcher.close();
  }
}

export const ratelimitConcurrentBurst: CheckDefinition = {
  id: 'ratelimit.concurrent_burst',
  plan: () => ({ needs: [{ kind: 'fresh' }], countsQuota: true, estimateMs: 500 }),
  async run(check, [clientId]) {
    const { limit, windowMs } = check.config;
    const size = Math.ceil(1.5 * limit);
    const attempts = [await burst(check, clientId!, size, 'idle')];
    while (
      attempts.length < MAX_ATTEMPTS &&
      concurrentAttemptIsAmbiguous(attempts.at(-1)!, attempts.at(-2), limit, windowMs)
    ) {
      const refusals = attempts.at(-1)!.roundTrips.filter((e) => e.admission === 'refused');
      await check.until(Math.max(...refusals.map((e) => announcedResetMs(e, windowMs))));
      attempts.push(await burst(check, clientId!, size, 'reset'));
    }
    return judgeConcurrentBurst({ limit, windowMs, attempts });
  },
};
