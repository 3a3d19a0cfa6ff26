/**
 * The `envelope` check's procedure: responses sampled from every known method
 * and from an unknown one.
 */
import { randomBytes } from 'node:crypto';
import { excerptBody } from '../../util/sanitize.ts';
import { callPolitely } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { VerifyConfig } from '../config.ts';
import { judgeEnvelope, type EnvelopeSample } from '../verdicts/envelope.ts';

/** Responses sampled at most: a server that breaks 1 in 5 envelopes shows it with near certainty. */
const MAX_SAMPLES = 40;

/** Requests this check sends: one per known method, one unknown method, the rest on the probe method. */
function envelopeSampleSize(config: VerifyConfig): number {
  return Math.max(allMethods(config).length + 1, Math.min(MAX_SAMPLES, config.limit - 2));
}

function allMethods(config: VerifyConfig): string[] {
  return [...new Set([...config.methods, ...config.paginated.map((p) => p.method)])];
}

export const envelope: CheckDefinition = {
  id: 'envelope',
  plan: (config) => ({
    needs: [{ kind: 'spare', requests: envelopeSampleSize(config) }],
    countsQuota: false,
    estimateMs: 500,
  }),
  async run(check, [clientId]) {
    const { config } = check;
    const unknown = `rpcload.no_such_method_${randomBytes(4).toString('hex')}`;
    const known = allMethods(config);
    const plan = [unknown, ...known];
    while (plan.length < envelopeSampleSize(config)) plan.push(config.methods[0]!);
    const samples: EnvelopeSample[] = [];
    let refusalsWaited = 0;
    for (const method of plan) {
      const { roundTrip, reply, refusals } = await callPolitely(check, { method, clientId });
      refusalsWaited += refusals;
      if (roundTrip.admission === 'refused') continue;
      samples.push({
        method,
        unknownMethod: method === unknown,
        atMs: roundTrip.sentMs,
        status: roundTrip.status,
        kind: reply.classification?.kind ?? null,
        outcome: roundTrip.outcome,
        violations: reply.classification?.violations ?? [],
        bodyExcerpt: excerptBody(reply.body, 120),
      });
    }
    return judgeEnvelope({ samples, refusalsWaited });
  },
};
