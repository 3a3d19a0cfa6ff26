/**
 * The `ratelimit.response` check's procedure: a client exhausted, then its refusals and
 * rate-limit headers collected.
 */
import type { ApiReply } from '../../api/http-call.ts';
import { excerptBody } from '../../util/sanitize.ts';
import { sendUntilRefused } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import { contentTypeOf, retryAfterOf, round } from '../round-trip.ts';
import type { CheckContext } from '../check-context.ts';
import { advertisedLimits, rateLimitHeaderNotes } from '../verdicts/rate-limit-headers.ts';
import { judgeResponse, type RefusalSample } from '../verdicts/ratelimit-response.ts';
import { tooSlowToJudge } from '../verdicts/window-bounds.ts';
import { burstCap } from './ratelimit-threshold.ts';

/** Refusals inspected after the first one: the answer must stay the same while throttled. */
const EXTRA_REFUSALS = 2;

function refusalSample(check: CheckContext, reply: ApiReply): RefusalSample {
  const classification = reply.classification;
  return {
    atMs: round(reply.sentAtMs - check.originMs),
    status: reply.status,
    contentType: contentTypeOf(reply) ?? null,
    retryAfter: retryAfterOf(reply, check.run.clock.epochMs()),
    envelope: classification?.kind ?? 'invalid',
    errorCode: classification?.errorCode ?? null,
    violations: classification?.violations ?? [],
    bodyExcerpt: excerptBody(reply.body, 120),
  };
}

export const ratelimitResponse: CheckDefinition = {
  id: 'ratelimit.response',
  plan: () => ({ needs: [{ kind: 'fresh' }], countsQuota: true, estimateMs: 500 }),
  async run(check, [clientId]) {
    const { limit, windowMs, methods } = check.config;
    const run = await sendUntilRefused(check, clientId!, burstCap(limit), () => methods[0]!);
    const refusals = run.stop === 'refused' ? [refusalSample(check, run.lastReply!)] : [];
    for (let i = 0; i < EXTRA_REFUSALS && run.stop === 'refused'; i++) {
      // Another method too, when there is one: a refusal looks the same whatever was called.
      const { roundTrip, reply } = await check.call({ method: methods[(i + 1) % methods.length]!, clientId });
      if (roundTrip.admission === 'refused') refusals.push(refusalSample(check, reply));
    }
    const nowEpochS = check.run.clock.epochMs() / 1000;
    const headerNotes = rateLimitHeaderNotes(
      run.lastAdmittedReply ? advertisedLimits(run.lastAdmittedReply.headers, nowEpochS) : null,
      run.refusal ? advertisedLimits(run.lastReply!.headers, nowEpochS) : null,
      run.refusal?.retryAfterS ?? null,
      { limit, windowMs },
    );
    return judgeResponse({
      admittedBefore: run.roundTrips.filter((e) => e.admission === 'admitted').length,
      tooSlow: run.stop === 'cap' ? tooSlowToJudge(run.roundTrips, limit, windowMs) : null,
      stop: run.stop,
      failedOutcome: run.stop === 'failed' ? (run.roundTrips.at(-1)?.outcome ?? null) : null,
      refusals,
      headerNotes,
    });
  },
};
