/**
 * Passive rate-limit verdicts: what a load run's own traffic, recorded in the ledger, says about
 * the server's rate limit.
 */
import type { CheckResult, RateLimitObservation } from '../../contract/result-schema.ts';
import { roundMs } from '../../metrics/hdr.ts';
import type { LedgerData } from '../../metrics/ledger-data.ts';
import { perReplicaReading } from '../verdicts/per-replica-hint.ts';
import { settledWindows, type ClientWindow, type SettledReading } from './window-readings.ts';

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
  notes,
});

/** One announced window as evidence (without its client): where its reset lies and how many were admitted inside. */
export function windowEvidence(w: ClientWindow): Record<string, string | number | boolean | null> {
  const { window } = w;
  return {
    reading: w.reading,
    refusedAtMs: roundMs(window.refusedAtMs),
    retryAfterS: window.retryAfterS,
    resetFromMs: roundMs(window.resetFromMs),
    resetToMs: roundMs(window.resetToMs),
    admittedMin: window.admittedMin,
    admittedMax: window.admittedMax,
    admittedMaxAfterRefusal: window.admittedMaxAfterRefusal,
    sinceReset: window.sinceReset,
    sinceResetSpanMs: roundMs(window.sinceResetSpanMs),
    ...(window.withinLimitFromMs === null ? {} : { withinLimitFromMs: roundMs(window.withinLimitFromMs) }),
    ...(w.byPhase ? { byPhase: true } : {}),
    ...(window.anchoredOnLast ? { anchoredOnLast: true } : {}),
    ...(window.open ? { open: true } : {}),
    ...(window.mayBeginBeforeRun ? { mayBeginBeforeRun: true } : {}),
  };
}

const range = (values: readonly number[]): string => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? `${lo}` : `${lo}–${hi}`;
};

const clientsIn = (windows: readonly ClientWindow[]): number => new Set(windows.map((w) => w.client)).size;
const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** The admitted count of windows as "N" or "N–M" (the reset's uncertainty). */
const countsOf = (windows: readonly ClientWindow[]): string =>
  range(
    windows.flatMap((w) =>
      w.window.admittedMin === w.window.admittedMax
        ? [w.window.admittedMin]
        : [w.window.admittedMin, w.window.admittedMax],
    ),
  );

const EARLY_NOTE =
  'an early refusal is expected if the quota is shared across client IDs, or if these client IDs sent requests ' +
  'from elsewhere during the run (windows that may have begun before the run are not judged)';

/** "client a" or "N clients". */
const whoOf = (windows: readonly ClientWindow[]): string =>
  clientsIn(windows) === 1 ? `client ${windows[0]!.client}` : `${clientsIn(windows)} clients`;

/**
 * Windows that may have begun before the run, in words: why they are not judged. Null when none.
 * (Nightly jobs run their steps back to back with the same client IDs: the window a run starts in
 * may already hold the previous step's requests.)
 */
function beforeRunClause(beforeRun: readonly ClientWindow[], ofAll: string, limit: number): string | null {
  if (beforeRun.length === 0) return null;
  const which = `${beforeRun.length} of ${ofAll} (${whoOf(beforeRun)})`;
  const inside = 'requests sent before it (an earlier run with the same client IDs) may be inside';
  const counts = `${countsOf(beforeRun)} admitted in the run, limit ${limit}`;
  return `${which} may have begun before the run, so ${inside}: not judged (${counts})`;
}

function thresholdCheck(ledger: LedgerData): CheckResult {
  const { limit, windowMs } = ledger;
  const windows = settledWindows(ledger);
  const of = (reading: SettledReading) => windows.filter((w) => w.reading === reading);
  const [exact, early, over, aligned, inconclusive] = [
    of('exact'),
    of('early'),
    of('over'),
    of('aligned_possible'),
    of('inconclusive'),
  ];
  const beforeRun = of('before_run');
  const clients = Object.values(ledger.clients);
  const withheld = clients.filter((c) => c.windowsWithheld).length;
  const evidence = {
    limit,
    windowS: windowMs / 1000,
    windows: windows.length,
    windowsDropped: clients.reduce((sum, c) => sum + c.windowsDropped, 0),
    clientsObserved: clientsIn(windows),
    exact: exact.length,
    early: early.length,
    over: over.length,
    alignedPossible: aligned.length,
    beforeRun: beforeRun.length,
    inconclusive: inconclusive.length,
    ...(withheld > 0 ? { clientsWithheld: withheld } : {}),
    examples: [...over, ...early, ...aligned, ...beforeRun, ...inconclusive, ...exact]
      .slice(0, EXAMPLES)
      .map((w) => ({ client: w.client, ...windowEvidence(w) })),
  };
  const id = 'ratelimit.threshold';
  const n = windows.length;
  if (n === 0) {
    const why =
      withheld > 0
        ? 'the clients refused had their traffic split over several parts, so no part saw whole windows'
        : 'no client was refused, so the run never reached a quota (a greedy client or `rpcload verify` does)';
    return checkResult(id, 'skip', why, evidence);
  }
  const ofAll = `${n} announced ${n === 1 ? 'window' : 'windows'}`;
  if (over.length > 0 || early.length > 0) {
    const byPhase = over.filter((w) => w.byPhase);
    const surely = over.filter((w) => !w.byPhase);
    const parts = [
      surely.length > 0
        ? `${surely.length} of ${ofAll} (${plural(clientsIn(surely), 'client')}) held ${countsOf(surely)} admitted requests before the reset their Retry-After announced (limit ${limit})`
        : '',
      byPhase.length > 0
        ? `${byPhase.length} of ${ofAll} (${plural(clientsIn(byPhase), 'client')}) admitted ${range(byPhase.map((w) => w.window.sinceReset))} within less than one window before their refusal (limit ${limit}), and no clock-aligned window explains them all`
        : '',
      early.length > 0
        ? `${early.length} of ${ofAll} (${plural(clientsIn(early), 'client')}) refused after at most ${range(early.map((w) => w.window.admittedMax))} admitted in the announced window (limit ${limit})`
        : '',
    ];
    const notes = early.length > 0 ? [EARLY_NOTE] : [];
    const perReplica = perReplicaWindow(over, limit);
    if (perReplica !== null) notes.push(perReplica.note);
    return checkResult(
      id,
      'fail',
      parts.filter(Boolean).join('; '),
      perReplica === null
        ? evidence
        : { ...evidence, perReplicaCounting: { admitted: perReplica.admitted, limit, replicas: perReplica.replicas } },
      notes.length > 0 ? notes : undefined,
    );
  }
  const unsettled = [...aligned, ...inconclusive];
  const unsettledNote =
    unsettled.length > 0
      ? `${unsettled.length} of ${ofAll} could hold ${countsOf(unsettled)} admitted requests: up to ${Math.max(...unsettled.map((w) => w.window.admittedMax)) - limit} over the limit if the reset fell early within the whole second Retry-After rounds to${aligned.length > 0 ? ', or a clock-aligned boundary inside' : ''}`
      : null;
  const beforeRunNote = beforeRunClause(beforeRun, ofAll, limit);
  if (exact.length > 0) {
    const notes = [unsettledNote, beforeRunNote].filter((note): note is string => note !== null);
    const held = `held at most ${limit} admitted requests before the announced reset, and could hold exactly ${limit}`;
    const notJudged =
      beforeRun.length === 0 ? '' : `; ${beforeRun.length} more may have begun before the run: not judged`;
    return checkResult(
      id,
      'pass',
      `${exact.length} of ${ofAll} (${whoOf(exact)}) ${held}${notJudged}`,
      evidence,
      notes.length > 0 ? notes : undefined,
    );
  }
  const why = [
    unsettledNote === null ? null : `${unsettledNote} — the reset's rounding covers both readings`,
    beforeRunNote === null ? null : `${beforeRunNote} — a longer run reads the windows after it`,
  ].filter((part): part is string => part !== null);
  const detail = `inconclusive: ${why.join('; ')}; run \`rpcload verify\` for a definite answer`;
  return checkResult(id, 'skip', detail, evidence);
}

/**
 * The first window over the limit that admitted exactly a multiple of it since the client was last
 * readmitted (and can hold that many): what per-replica counting admits.
 */
function perReplicaWindow(
  over: readonly ClientWindow[],
  limit: number,
): { admitted: number; replicas: number; note: string } | null {
  for (const { window } of over) {
    const count = window.sinceReset;
    const reading = count >= window.admittedMin && count <= window.admittedMax ? perReplicaReading(count, limit) : null;
    if (reading !== null) return { admitted: count, ...reading };
  }
  return null;
}

function retryCheck(ledger: LedgerData): CheckResult {
  const clients = Object.values(ledger.clients);
  const total = (key: 'admitted' | 'refused' | 'refusedEarly' | 'unknown'): number =>
    clients.reduce((sum, c) => sum + c.honoured[key], 0);
  const [admitted, refused, refusedEarly, unknown] = [
    total('admitted'),
    total('refused'),
    total('refusedEarly'),
    total('unknown'),
  ];
  const retries = clients.flatMap((c) => c.observations).filter((o) => o.kind === 'honoured_retry');
  const refusals = retries.filter((o) => o.detail.admitted !== true && o.detail.waitedFull === true);
  const retryAfterValues: Record<string, number> = {};
  for (const o of retries)
    retryAfterValues[String(o.detail.retryAfterS)] = (retryAfterValues[String(o.detail.retryAfterS)] ?? 0) + 1;
  const moments = [
    ...new Set(retries.map((o) => o.detail.refusalPeriodOffsetMs).filter((v): v is number => typeof v === 'number')),
  ];
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
  if (ledger.policy === 'ignore') return retryCheckWhileSending(ledger, evidence);
  const why =
    refusedEarly + unknown > 0
      ? `no retry after a Retry-After wait had a usable answer (${refusedEarly} came back early, ${unknown} failed or had no Retry-After)`
      : 'no client was refused and then waited out a Retry-After';
  return checkResult(id, 'skip', why, evidence);
}

/**
 * `ratelimit.retry_after_honoured` under 429 policy ignore, from the announced windows: the client
 * kept sending, so a refusal sent after the reset announced earlier in the same streak may be a
 * Retry-After too short or a limiter that counts refused requests (and moves the reset): not
 * judged then. Otherwise every streak ended with an admission after the announced reset: pass.
 */
function retryCheckWhileSending(ledger: LedgerData, evidence: Record<string, unknown>): CheckResult {
  const id = 'ratelimit.retry_after_honoured';
  const windows = settledWindows(ledger).filter((w) => w.window.retryAfterS !== null);
  const late = windows.filter((w) => w.window.refusedAfterAnnouncedReset > 0);
  const readmitted = windows.filter((w) => w.window.readmittedAfterAnnouncedReset);
  const lateRefusals = late.reduce((sum, w) => sum + w.window.refusedAfterAnnouncedReset, 0);
  const all = {
    ...evidence,
    announcedWindows: windows.length,
    readmittedAfterAnnouncedReset: readmitted.length,
    refusedAfterAnnouncedReset: lateRefusals,
  };
  if (late.length === 0 && readmitted.length === 0)
    return checkResult(
      id,
      'skip',
      'the run never sent a request after a reset a Retry-After announced (429 policy: ignore)',
      all,
    );
  if (late.length > 0)
    return checkResult(
      id,
      'skip',
      `inconclusive: ${lateRefusals} request(s) sent after the reset a refusal announced were still refused, in ${late.length} of ${windows.length} announced windows, but the client kept sending meanwhile (429 policy: ignore) — a limiter that counts refused requests does that too; run with on429 honour or \`rpcload verify\``,
      all,
    );
  return checkResult(
    id,
    'pass',
    `no request sent after a reset a Retry-After announced was refused; in ${readmitted.length} of ${windows.length} announced windows one sent after it was admitted (429 policy: ignore)`,
    all,
  );
}

const evidenceOfRetry = (o: RateLimitObservation) => ({ client: o.client, atMs: o.atMs, ...o.detail });

/**
 * The verdicts the passive ledger supports, from a load run's own traffic: `ratelimit.threshold`
 * and `ratelimit.retry_after_honoured`. Pure; each carries its evidence (counts, Retry-After
 * values, clients, times in ms since run start) and is `skip` with the reason when the run did
 * not exercise it. Judged against the contract the ledger was recorded under.
 */
export function passiveRateLimitChecks(ledger: LedgerData): CheckResult[] {
  return [thresholdCheck(ledger), retryCheck(ledger)];
}
