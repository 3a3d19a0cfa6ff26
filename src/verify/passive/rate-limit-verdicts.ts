/**
 * Passive rate-limit verdicts: what a load run's own traffic, recorded in the ledger, says about
 * the server's rate limit.
 */
import type { RateLimitContract } from '../../contract/rate-limit.ts';
import type { CheckResult, RateLimitObservation } from '../../contract/result-schema.ts';
import { firstRefusals, type FirstRefusal } from './first-refusal.ts';
import { roundMs } from '../../metrics/hdr.ts';
import type { LedgerData } from '../../metrics/ledger-data.ts';

/** How one client's first burst reads against the contract's limit. */
export type ThresholdReading = 'exact' | 'early' | 'over' | 'inconclusive';

/**
 * Pure reading of one first refusal. More than 2 × limit cannot happen with any conformant
 * limiter; between limit and 2 × limit a window aligned to the clock (not to the client's first
 * request) may have reset mid-burst, so only an active probe (`rpcload verify`) can tell.
 * Requests of unknown fate before the refusal may have been counted by the server.
 */
export function readThreshold(r: FirstRefusal, limit: number): ThresholdReading {
  if (r.admitted > 2 * limit) return 'over';
  if (r.atLeast) return 'inconclusive';
  if (r.admitted + r.uncertain < limit) return 'early';
  if (r.admitted === limit && r.uncertain === 0) return 'exact';
  return 'inconclusive';
}

const EXAMPLES = 10;

/** A check with its keys in reading order. */
const checkResult = (
  id: string,
  verdict: CheckResult['verdict'],
  detail: string,
  evidence: Record<string, unknown>,
  notes?: string[],
): CheckResult => ({
  id,
  verdict,
  detail,
  evidence,
  ...(notes === undefined ? {} : { notes }),
});

const exampleOf = (r: FirstRefusal, reading: ThresholdReading) => ({
  client: r.client,
  reading,
  admittedBeforeRefusal: r.admitted,
  atLeast: r.atLeast,
  uncertain: r.uncertain,
  firstRequestAtMs: roundMs(r.firstRequestAtMs),
  firstRefusalAtMs: roundMs(r.firstRefusalAtMs),
});

const range = (values: readonly number[]): string => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? `${lo}` : `${lo}–${hi}`;
};

function thresholdCheck(ledger: LedgerData, plan: RateLimitContract): CheckResult {
  const limit = plan.limit;
  const readings = firstRefusals(ledger.clients, limit, plan.windowMs).map((r) => ({ r, reading: readThreshold(r, limit) }));
  const of = (reading: ThresholdReading) => readings.filter((x) => x.reading === reading);
  const [exact, early, over, inconclusive] = [of('exact'), of('early'), of('over'), of('inconclusive')];
  const counts: Record<string, number> = {};
  for (const { r } of readings) counts[`${r.admitted}${r.atLeast ? '+' : ''}`] = (counts[`${r.admitted}${r.atLeast ? '+' : ''}`] ?? 0) + 1;
  const evidence = {
    limit,
    windowS: plan.windowMs / 1000,
    clientsObserved: readings.length,
    exact: exact.length,
    early: early.length,
    over: over.length,
    inconclusive: inconclusive.length,
    admittedBeforeFirstRefusal: counts,
    examples: [...over, ...early, ...inconclusive, ...exact].slice(0, EXAMPLES).map((x) => exampleOf(x.r, x.reading)),
  };
  const id = 'ratelimit.threshold';
  const n = readings.length;
  if (n === 0) {
    return checkResult(
      id,
      'skip',
      'no client was refused within one window of its first request, so the run never measured a quota from idle (a greedy client or `rpcload verify` does)',
      evidence,
    );
  }
  if (over.length > 0 || early.length > 0) {
    const parts = [
      over.length > 0
        ? `${over.length} of ${n} clients admitted ${range(over.map((x) => x.r.admitted))} requests before their first 429 (more than 2 × the limit of ${limit})`
        : '',
      early.length > 0
        ? `${early.length} of ${n} clients were refused after only ${range(early.map((x) => x.r.admitted))} admitted (limit ${limit})`
        : '',
    ];
    const notes =
      early.length > 0
        ? ['an early refusal is expected if these client IDs sent requests within one window before the run started']
        : undefined;
    return checkResult(id, 'fail', parts.filter(Boolean).join('; '), evidence, notes);
  }
  if (inconclusive.length > 0) {
    const admitted = inconclusive.map((x) => x.r.admitted);
    const detail = `inconclusive: ${inconclusive.length} of ${n} clients were admitted ${range(admitted)} requests before their first 429 (limit ${limit}); a clock-aligned window may have reset during the burst, or requests failed in transit — run \`rpcload verify\` for a definite answer`;
    return checkResult(id, 'skip', detail, evidence);
  }
  const who = n === 1 ? `the client refused from idle (${readings[0]!.r.client}) was` : `all ${n} clients refused from idle were`;
  return checkResult(id, 'pass', `${who} refused after exactly ${limit} admitted requests`, evidence);
}

function retryCheck(ledger: LedgerData): CheckResult {
  const clients = Object.values(ledger.clients);
  const total = (key: 'admitted' | 'refused' | 'refusedEarly' | 'unknown'): number => clients.reduce((sum, c) => sum + c.honoured[key], 0);
  const [admitted, refused, refusedEarly, unknown] = [total('admitted'), total('refused'), total('refusedEarly'), total('unknown')];
  const retries = clients.flatMap((c) => c.observations).filter((o) => o.kind === 'honoured_retry');
  const refusals = retries.filter((o) => o.detail.admitted !== true && o.detail.waitedFull === true);
  const retryAfterValues: Record<string, number> = {};
  for (const o of retries) retryAfterValues[String(o.detail.retryAfterS)] = (retryAfterValues[String(o.detail.retryAfterS)] ?? 0) + 1;
  const moments = [...new Set(retries.map((o) => o.detail.refusalPeriodOffsetMs).filter((v): v is number => typeof v === 'number'))];
  const evidence = {
    policy: ledger.policy,
    retries: admitted + refused + refusedEarly + unknown,
    admitted,
    refused,
    refusedEarly,
    unknown,
    retryAfterSObserved: retryAfterValues,
    refusalMomentsInWindowMs: moments.sort((a, b) => a - b).slice(0, EXAMPLES),
    refusals: refusals.slice(0, EXAMPLES).map(evidenceOfRetry),
  };
  const id = 'ratelimit.retry_after_honoured';
  if (refused > 0) {
    const values = refusals.map((o) => Number(o.detail.retryAfterS));
    const waited = refusals.map((o) => Number(o.detail.waitedMs));
    const said = values.length > 0 ? ` (Retry-After ${range(values)} s, waited ${range(waited)} ms)` : '';
    return checkResult(
      id,
      'fail',
      `${refused} of ${admitted + refused} retries that waited out their Retry-After were refused again${said}`,
      evidence,
    );
  }
  if (admitted > 0) {
    return checkResult(
      id,
      'pass',
      admitted === 1
        ? 'the retry that waited out its Retry-After was admitted'
        : `all ${admitted} retries that waited out their Retry-After were admitted`,
      evidence,
    );
  }
  const why =
    ledger.policy === 'ignore'
      ? 'the run never waited out a Retry-After (429 policy: ignore)'
      : refusedEarly + unknown > 0
        ? `no retry after a Retry-After wait had a usable answer (${refusedEarly} came back early, ${unknown} failed or had no Retry-After)`
        : 'no client was refused and then waited out a Retry-After';
  return checkResult(id, 'skip', why, evidence);
}

const evidenceOfRetry = (o: RateLimitObservation) => ({ client: o.client, atMs: o.atMs, ...o.detail });

/**
 * The verdicts the passive ledger supports, from a load run's own traffic: `ratelimit.threshold`
 * and `ratelimit.retry_after_honoured`. Pure; each carries its evidence (counts, Retry-After
 * values, clients, times in ms since run start) and is `skip` with the reason when the run did
 * not exercise it. The contract defaults to the one the ledger was recorded under.
 */
export function passiveRateLimitChecks(ledger: LedgerData, rateLimit: RateLimitContract = ledger): CheckResult[] {
  return [thresholdCheck(ledger, rateLimit), retryCheck(ledger)];
}
