/**
 * The `ratelimit.per_client` check's procedure: client A exhausted, then requests with A's second
 * token, A's first token and client B.
 */
import { sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import type { CheckContext } from '../check-context.ts';
import { attemptIsInconclusive, judgePerClient, type PerClientAttempt } from '../verdicts/ratelimit-per-client.ts';
import { announcedResetMs, tooSlowToJudge } from '../verdicts/window-bounds.ts';
import { burstCap } from './ratelimit-threshold.ts';

/** Requests with the second token: a separate quota admits them all, a refilling shared one hardly any. */
const SECOND_TOKEN_REQUESTS = 5;
const MAX_ATTEMPTS = 2;

async function attempt(
  check: CheckContext,
  clientA: string,
  clientB: string,
  secondTokenOfA: string,
): Promise<PerClientAttempt> {
  const { methods, limit } = check.config;
  const method = methods[0]!;
  const run = await sendUntilRefused(check, clientA, burstCap(limit), () => method);
  const exhaustion = {
    admitted: run.roundTrips.filter((e) => e.admission === 'admitted').length,
    stop: run.stop,
    last: run.roundTrips.at(-1) ?? null,
    tooSlow: run.stop === 'cap' ? tooSlowToJudge(run.roundTrips, limit, check.config.windowMs) : null,
  };
  if (run.stop !== 'refused') return { exhaustion, secondToken: [], control: null, otherClient: null };
  const secondToken: RoundTrip[] = [];
  for (let i = 0; i < Math.min(limit, SECOND_TOKEN_REQUESTS); i++)
    secondToken.push((await check.call({ method, clientId: clientA, token: secondTokenOfA })).roundTrip);
  const control = (await check.call({ method, clientId: clientA })).roundTrip;
  const otherClient = (await check.call({ method, clientId: clientB })).roundTrip;
  return { exhaustion, secondToken, control, otherClient };
}

/**
 * Runs before the other quota-counting checks (see the scheduler): if one quota is shared
 * across client IDs, checks on different clients would disturb each other's counts. B is leased
 * exclusively too (it sends one request), so no other check can spend B's quota first.
 */
export const ratelimitPerClient: CheckDefinition = {
  id: 'ratelimit.per_client',
  plan: (_config, clientCount) =>
    clientCount < 2
      ? `needs 2 client IDs, ${clientCount} given (--client ID:SECRET, repeatable)`
      : { needs: [{ kind: 'fresh' }, { kind: 'fresh' }], countsQuota: true, estimateMs: 300 },
  async run(check, [clientA, clientB]) {
    const secondTokenOfA = await check.run.tokens.fresh(clientA!, false);
    const attempts = [await attempt(check, clientA!, clientB!, secondTokenOfA)];
    while (attempts.length < MAX_ATTEMPTS && attemptIsInconclusive(attempts.at(-1)!)) {
      // A boundary passed mid-attempt: right after the reset, none can pass again for a while.
      await check.until(announcedResetMs(attempts.at(-1)!.exhaustion.last!, check.config.windowMs));
      attempts.push(await attempt(check, clientA!, clientB!, secondTokenOfA));
    }
    return judgePerClient({ clientA: clientA!, clientB: clientB!, attempts });
  },
};
