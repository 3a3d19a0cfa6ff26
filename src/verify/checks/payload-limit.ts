/**
 * The `payload.limit` check's procedure: bodies of chosen sizes sent to find where the
 * server starts refusing them.
 */
import { excerptBody } from '../../util/sanitize.ts';
import { callPolitely } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import { contentTypeOf } from '../round-trip.ts';
import type { CheckContext } from '../check-context.ts';
import { judgePayloadLimit, payloadBracket, payloadResult, type PayloadProbe } from '../verdicts/payload-limit.ts';

/** The readings of "100 KB" the conventions allow when no payload limit is pinned. */
export const PAYLOAD_LIMIT_READINGS_BYTES = [100_000, 102_400] as const;

/** Body sizes tried at most (beyond the first): enough to bisect 100 KB down to a few bytes. */
const MAX_PROBES = 16;
/** Upper end of the search when even the larger reading of 100 KB is accepted. */
const SEARCH_CEILING_BYTES = 1024 * 1024;
const PADDED_SHELL = '{"padding":""}';

/** A JSON object of exactly `bytes` (≥ 2) bytes: one extra, ignorable field, or whitespace when tiny. */
export function paddedBody(bytes: number): string {
  return bytes < PADDED_SHELL.length
    ? `{${' '.repeat(bytes - 2)}}`
    : `{"padding":"${'x'.repeat(bytes - PADDED_SHELL.length)}"}`;
}

async function probe(check: CheckContext, clientId: string, bytes: number): Promise<PayloadProbe> {
  const { roundTrip, reply } = await callPolitely(check, {
    method: check.config.methods[0]!,
    clientId,
    body: paddedBody(bytes),
    bodyCapBytes: 4096,
  });
  return {
    bytes,
    atMs: roundTrip.sentMs,
    status: roundTrip.status,
    outcome: roundTrip.outcome,
    result: payloadResult(roundTrip.status, roundTrip.outcome),
    contentType: contentTypeOf(reply) ?? null,
    bodyExcerpt: excerptBody(reply.body, 100),
  };
}

/**
 * Try the sizes that decide the verdict first (each expected limit and one byte over it), then
 * bisect between the largest accepted and the smallest refused size to say where the limit is.
 */
async function search(check: CheckContext, clientId: string, expected: readonly number[]): Promise<PayloadProbe[]> {
  const probes: PayloadProbe[] = [await probe(check, clientId, 2)];
  const tried = (bytes: number): PayloadProbe | undefined => probes.find((p) => p.bytes === bytes);
  const tryBytes = async (bytes: number): Promise<PayloadProbe> =>
    tried(bytes) ?? probes[probes.push(await probe(check, clientId, bytes)) - 1]!;
  if (probes[0]!.result !== 'accepted') return probes;
  for (const limit of expected) {
    if ((await tryBytes(limit)).result !== 'accepted') break;
    if ((await tryBytes(limit + 1)).result !== 'accepted') return probes;
  }
  if (payloadBracket(probes).minRefused === null) await tryBytes(SEARCH_CEILING_BYTES);
  while (probes.length <= MAX_PROBES) {
    const { maxAccepted, minRefused } = payloadBracket(probes);
    if (maxAccepted === null || minRefused === null || minRefused - maxAccepted <= 1) break;
    await tryBytes(Math.floor((maxAccepted + minRefused) / 2));
  }
  return probes;
}

export const payloadLimit: CheckDefinition = {
  id: 'payload.limit',
  plan: () => ({ needs: [{ kind: 'spare', requests: 5 }], countsQuota: false, estimateMs: 500 }),
  async run(check, [clientId]) {
    const expected =
      check.config.payloadLimitBytes === null ? PAYLOAD_LIMIT_READINGS_BYTES : [check.config.payloadLimitBytes];
    return judgePayloadLimit({ expectedBytes: expected, probes: await search(check, clientId!, expected) });
  },
};
