/**
 * The signature of per-replica counting: a client admitted exactly k × the limit (k ≥ 2) before
 * its refusal, which is what k replicas behind the target admit when each counts on its own.
 * Checks that fail on a count add it to their evidence, so the server's owner knows where to look.
 */
import type { CheckOutcome } from '../check.ts';

/** What an admitted count over the limit says about replicas; null when it is not a multiple of the limit. */
export function perReplicaReading(
  admitted: number,
  limit: number,
): { readonly replicas: number; readonly note: string } | null {
  if (admitted <= limit || admitted % limit !== 0) return null;
  const replicas = admitted / limit;
  return {
    replicas,
    note: `${admitted} admitted is exactly ${replicas} × the limit of ${limit}: this looks like per-replica counting (${replicas} replicas behind the target, each counting on its own); check each replica with --replica URL (ratelimit.replicas)`,
  };
}

/**
 * A failed outcome with the per-replica reading of the first count that is a multiple of the
 * limit: in its evidence (`perReplicaCounting`), its notes, and a short mention in the detail.
 */
export function withPerReplicaReading(
  outcome: CheckOutcome,
  admittedCounts: readonly number[],
  limit: number,
): CheckOutcome {
  if (outcome.verdict !== 'fail') return outcome;
  const found = admittedCounts
    .map((admitted) => ({ admitted, reading: perReplicaReading(admitted, limit) }))
    .find((c) => c.reading !== null);
  if (found === undefined) return outcome;
  const { admitted, reading } = found as {
    admitted: number;
    reading: NonNullable<ReturnType<typeof perReplicaReading>>;
  };
  return {
    ...outcome,
    detail: `${outcome.detail} — ${reading.replicas} × the limit: looks like per-replica counting`,
    evidence: { ...outcome.evidence, perReplicaCounting: { admitted, limit, replicas: reading.replicas } },
    notes: [...(outcome.notes ?? []), reading.note],
  };
}
