/**
 * The `ratelimit.all_methods` check's procedure: one client's quota spent across two methods until
 * refused, repeated after a reset while the result is ambiguous.
 */
import { awaitReadmission, sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import type { CheckContext } from '../check-context.ts';
import { attemptIsAmbiguous, judgeAllMethods, type MethodsAttempt } from '../verdicts/ratelimit-all-methods.ts';
import { announcedResetMs } from '../verdicts/window-bounds.ts';
import { burstCap } from './ratelimit-threshold.ts';

/** Attempts at most: the second one starts right after a reset, where no boundary falls inside (windows ≥ 2 s). */
const MAX_ATTEMPTS = 3;

/**
 * ⌈limit/2⌉ on the first method, the rest on the second, then the first again until refused.
 * After a reset, the attempt starts with the first request re-admitted (a Retry-After rounded
 * down is ratelimit.retry_after_honoured's business).
 */
async function attempt(
  check: CheckContext,
  clientId: string,
  first: string,
  second: string,
  after: RoundTrip | null,
): Promise<MethodsAttempt> {
  const { limit, windowMs } = check.config;
  const half = Math.ceil(limit / 2);
  const methodAt = (i: number): string => (i >= half && i < limit ? second : first);
  if (after === null)
    return {
      kind: 'idle',
      roundTrips: (await sendUntilRefused(check, clientId, burstCap(limit), methodAt)).roundTrips,
    };
  const opening = await awaitReadmission(
    check,
    clientId,
    first,
    announcedResetMs(after, windowMs),
    windowMs / (2 * limit),
  );
  const opener = opening.roundTrips.at(-1)!;
  if (opening.stop !== 'admitted') return { kind: 'reset', roundTrips: [opener] };
  const rest = await sendUntilRefused(check, clientId, burstCap(limit) - 1, (i) => methodAt(i + 1));
  return { kind: 'reset', roundTrips: [opener, ...rest.roundTrips] };
}

export const ratelimitAllMethods: CheckDefinition = {
  id: 'ratelimit.all_methods',
  plan: (config) =>
    config.methods.length < 2
      ? 'needs a second method (--method NAME, repeatable)'
      : { needs: [{ kind: 'fresh' }], countsQuota: true, estimateMs: 500 },
  async run(check, [clientId]) {
    const { limit, windowMs, methods } = check.config;
    const [first, second] = [methods[0]!, methods[1]!];
    const attempts = [await attempt(check, clientId!, first, second, null)];
    while (attempts.length < MAX_ATTEMPTS && attemptIsAmbiguous(attempts.at(-1)!, attempts.at(-2), limit, windowMs)) {
      attempts.push(await attempt(check, clientId!, first, second, attempts.at(-1)!.roundTrips.at(-1)!));
    }
    return judgeAllMethods({ limit, windowMs, methods: [first, second], attempts });
  },
};
