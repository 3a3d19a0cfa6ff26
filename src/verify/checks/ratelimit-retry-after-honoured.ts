/**
 * The `ratelimit.retry_after_honoured` check's procedure: a client exhausted, its Retry-After
 * waited out exactly, then one more request.
 */
import { sendUntilRefused, type Run } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import type { CheckContext } from '../check-context.ts';
import {
  judgeRetryAfterHonoured,
  type HonourObservation,
  type HonourSample,
  type SlackProbe,
} from '../verdicts/ratelimit-retry-after-honoured.ts';
import { announcedResetMs, tooSlowToJudge } from '../verdicts/window-bounds.ts';
import { burstCap } from './ratelimit-threshold.ts';

type Problem = HonourObservation['problem'];

function runProblem(run: Run, limit: number, windowMs: number): Problem {
  if (run.stop === 'failed')
    return {
      kind: 'failed',
      detail: `a request got no verdict from the limiter (${run.roundTrips.at(-1)?.outcome ?? 'unknown'})`,
    };
  if (run.stop !== 'cap') return null;
  const slow = tooSlowToJudge(run.roundTrips, limit, windowMs);
  return slow === null
    ? { kind: 'no-refusal', detail: `no refusal after ${run.roundTrips.length} requests sent back to back` }
    : { kind: 'failed', detail: slow };
}

/** Wait exactly the refusal's Retry-After from its receipt, sending nothing, then send one request. */
async function honour(
  check: CheckContext,
  clientId: string,
  method: string,
  refusal: RoundTrip,
  exhaustedAtMs: number,
): Promise<HonourSample> {
  if (refusal.retryAfterS === null) return { exhaustedAtMs, refusal, probe: null };
  await check.until(announcedResetMs(refusal, 0));
  const { roundTrip } = await check.call({ method, clientId });
  return { exhaustedAtMs, refusal, probe: roundTrip };
}

/**
 * Two samples on one client. First: exhaust, honour the refusal that came right after. Then,
 * once re-admitted, exhaust again and take a refusal later in that throttled stretch: when the
 * exhaustion refusal says N ≥ 2 s, the request N − 1 s after it doubles as the accuracy probe
 * (a refusal of its own, never between a refusal and the request that honours it); otherwise
 * one halfway through. Honour that later refusal.
 */
async function observe(check: CheckContext, clientId: string): Promise<HonourObservation> {
  const { limit, windowMs, methods, strictRetryAfter: strict } = check.config;
  const method = methods[0]!;
  const exhaust = (): Promise<Run> => sendUntilRefused(check, clientId, burstCap(limit), () => method);

  const first = await exhaust();
  if (first.refusal === null) return { samples: [], slack: null, strict, problem: runProblem(first, limit, windowMs) };
  const early = await honour(check, clientId, method, first.refusal, first.refusal.sentMs);
  if (early.probe?.admission !== 'admitted') return { samples: [early], slack: null, strict, problem: null };

  const second = await exhaust();
  if (second.refusal === null)
    return { samples: [early], slack: null, strict, problem: runProblem(second, limit, windowMs) };
  const opener = second.refusal;
  const waitS = opener.retryAfterS ?? 0;
  await check.until(opener.doneMs + (waitS >= 2 ? (waitS - 1) * 1000 : waitS * 500));
  const { roundTrip: later } = await check.call({ method, clientId });
  const slack: SlackProbe | null = waitS >= 2 ? { refusal: opener, probe: later } : null;
  let lateRefusal: RoundTrip | null = later.admission === 'refused' ? later : null;
  if (lateRefusal === null && later.admission === 'admitted') {
    // Admitted early (slack, or a quota that refills): exhaust once more for a refusal to honour.
    const third = await exhaust();
    if (third.refusal === null) return { samples: [early], slack, strict, problem: runProblem(third, limit, windowMs) };
    lateRefusal = third.refusal;
  }
  if (lateRefusal === null)
    return {
      samples: [early],
      slack,
      strict,
      problem: { kind: 'failed', detail: `a request got no verdict from the limiter (${later.outcome})` },
    };
  const late = await honour(check, clientId, method, lateRefusal, opener.sentMs);
  return { samples: [early, late], slack, strict, problem: null };
}

export const ratelimitRetryAfterHonoured: CheckDefinition = {
  id: 'ratelimit.retry_after_honoured',
  plan: (config) => ({ needs: [{ kind: 'fresh' }], countsQuota: true, estimateMs: 2 * config.windowMs }),
  run: async (check, [clientId]) => judgeRetryAfterHonoured(await observe(check, clientId!)),
};
