/**
 * `ratelimit.threshold`: (1) a fast burst from an idle client admits exactly `limit`; (2) after
 * waiting the Retry-After of its refusal, a fresh quota of exactly `limit`; (3) under continued
 * load at twice the contract rate, no open period admits more than `limit` and the client is
 * admitted again at the reset (see threshold-load.ts). A burst over the limit is not judged when a
 * window boundary may lie inside it or it had several requests in flight: it is repeated right
 * after the reset, one request at a time. A burst after the reset that falls short exactly as a
 * sliding window would (the first burst was slower than Retry-After's rounding) is repeated after
 * a whole window of rest.
 */
import type { CheckOutcome } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import { fail, pass, skip } from '../verdict.ts';
import { withPerReplicaReading } from './per-replica-hint.ts';
import { loadFindings } from './threshold-load.ts';
import type { BurstRecord, BurstSummary, ThresholdObservation } from './threshold-records.ts';
import { announcedResetMs, boundaryMayFallInside, mayStraddleAfterReset, tooSlowToJudge } from './window-bounds.ts';

export function summarizeBurst(burst: BurstRecord): BurstSummary {
  const firstAdmitted = burst.roundTrips.findIndex((e) => e.admission === 'admitted');
  const refusedBeforeAdmission = firstAdmitted === -1 ? burst.roundTrips.length : firstAdmitted;
  const refusals = burst.roundTrips.slice(refusedBeforeAdmission).filter((e) => e.admission === 'refused');
  return {
    kind: burst.kind,
    startMs: burst.roundTrips[0]?.sentMs ?? 0,
    endMs: Math.max(0, ...burst.roundTrips.map((e) => e.doneMs)),
    admitted: burst.roundTrips.filter((e) => e.admission === 'admitted').length,
    refusedBeforeAdmission,
    refusal: burst.stop === 'refused' ? (refusals.sort((a, b) => a.doneMs - b.doneMs)[0] ?? null) : null,
    concurrency: burst.concurrency,
    stop: burst.stop,
  };
}

/**
 * Over the limit, but not necessarily wrong: with several requests in flight a counter that
 * races could explain it (ratelimit.concurrent_burst's business), and a window boundary may have
 * fallen inside the burst. The procedure then repeats right after the reset, one at a time.
 */
export function burstIsAmbiguous(
  burst: BurstRecord,
  previousRefusal: RoundTrip | null,
  limit: number,
  windowMs: number,
): boolean {
  const summary = summarizeBurst(burst);
  if (summary.stop !== 'refused' || summary.admitted <= limit) return false;
  if (summary.concurrency > 1) return true;
  const lastRefusalBefore = burst.roundTrips.slice(0, summary.refusedBeforeAdmission).at(-1) ?? previousRefusal;
  if (summary.kind !== 'reset' || lastRefusalBefore === null)
    return boundaryMayFallInside(summary.startMs, summary.refusal!, windowMs);
  return mayStraddleAfterReset(summary.endMs, lastRefusalBefore, windowMs);
}

/**
 * Did a burst after the reset come back short exactly as a sliding window would have it? When
 * the first burst took longer than Retry-After's rounding, some of its admissions are still
 * within the window at the reset it announced, and a sliding log admits only the rest.
 */
export function slidingWindowExplains(
  burst: BurstRecord,
  earlierAdmissions: readonly RoundTrip[],
  limit: number,
  windowMs: number,
): boolean {
  const { refusal, admitted } = summarizeBurst(burst);
  if (refusal === null || admitted >= limit) return false;
  const surelyInside = earlierAdmissions.filter((e) => e.sentMs > refusal.doneMs - windowMs).length;
  const maybeInside = earlierAdmissions.filter((e) => e.doneMs > refusal.sentMs - windowMs).length;
  return limit - admitted >= surelyInside && limit - admitted <= maybeInside;
}

/**
 * What the procedure does after the last burst: after the idle burst, always the reset (one
 * request at a time if the idle burst was ambiguous); after an ambiguous burst, the next reset,
 * one at a time; after a burst a sliding window explains, a whole window of rest; else stop.
 */
export function nextBurst(
  bursts: readonly BurstRecord[],
  limit: number,
  windowMs: number,
): { readonly kind: 'reset' | 'rested'; readonly sequential: boolean } | null {
  const last = bursts.at(-1);
  if (last === undefined || last.stop !== 'refused' || summarizeBurst(last).refusal === null) return null;
  const previous = bursts.at(-2);
  const ambiguous = burstIsAmbiguous(last, previous ? summarizeBurst(previous).refusal : null, limit, windowMs);
  if (previous === undefined || ambiguous) return { kind: 'reset', sequential: ambiguous };
  const earlier = bursts.slice(0, -1).flatMap((b) => b.roundTrips.filter((e) => e.admission === 'admitted'));
  return last.kind === 'reset' && slidingWindowExplains(last, earlier, limit, windowMs)
    ? { kind: 'rested', sequential: false }
    : null;
}

/** The verdict, with the per-replica reading when a burst admitted a multiple of the limit. */
export function judgeThreshold(obs: ThresholdObservation): CheckOutcome {
  const admitted = obs.bursts.map((burst) => summarizeBurst(burst).admitted);
  return withPerReplicaReading(judgeCounts(obs), admitted, obs.limit);
}

function judgeCounts(obs: ThresholdObservation): CheckOutcome {
  const { limit, windowMs } = obs;
  const summaries = obs.bursts.map(summarizeBurst);
  const idle = summaries[0];
  const decisive = summaries.at(-1);
  const load =
    obs.load !== null && decisive?.stop === 'refused' && summaries.length > 1 ? loadFindings(obs, summaries) : null;
  const evidence = { limit, windowMs, bursts: summaries.map(burstEvidence), ...(load ? { load: load.evidence } : {}) };
  if (idle === undefined || decisive === undefined) return skip('inconclusive', 'no burst was sent', evidence);
  const failed = obs.bursts.flatMap((b) => b.roundTrips).find((e) => e.admission === 'failed');
  if (failed !== undefined)
    return skip(
      'target_broken',
      `a request got no verdict from the limiter (${failed.outcome} at ${failed.sentMs} ms); cannot count admissions`,
      evidence,
    );

  const problems: string[] = [];
  const longestMs = Math.round(Math.max(...summaries.map((s) => s.endMs - s.startMs)));
  const inFlight = Math.max(...summaries.map((s) => s.concurrency));
  const notes = [
    `bursts had ${inFlight === 1 ? 'one request' : `up to ${inFlight} requests`} in flight and took ${longestMs} ms at most` +
      (longestMs < 1000
        ? ': under 1 s, so a sliding-log limiter refills whole by the Retry-After'
        : ': over 1 s, so a sliding-log limiter may not refill whole by the Retry-After (a slow link)'),
  ];

  // Counts prove nothing when this machine could not send faster than the limit.
  const slow = obs.bursts
    .map((b, i) => tooSlowToJudge(b.roundTrips.slice(summaries[i]!.refusedBeforeAdmission), limit, windowMs))
    .find((why) => why !== null);
  if (slow !== undefined) return skip('inconclusive', slow, evidence, notes);

  // (1) From an idle client.
  if (idle.stop === 'cap')
    return fail(
      `no refusal after ${idle.admitted} requests sent back to back from an idle client (limit ${limit})`,
      evidence,
      notes,
    );
  if (idle.admitted < limit)
    problems.push(`an idle client was refused after ${idle.admitted} requests; the limit is ${limit}`);
  else if (idle.admitted > limit && burstIsAmbiguous(obs.bursts[0]!, null, limit, windowMs)) {
    const why =
      idle.concurrency > 1
        ? `${idle.concurrency} were in flight: a counter racing under concurrency is ratelimit.concurrent_burst's business`
        : 'a window boundary may have fallen inside it';
    notes.push(
      `the idle burst admitted ${idle.admitted}, not judged (${why}): repeated one request at a time right after the reset`,
    );
  } else if (idle.admitted > limit) {
    problems.push(
      `an idle client had ${idle.admitted} requests admitted before the first refusal; the limit is ${limit} (no window boundary can have fallen inside the ${Math.round(idle.endMs - idle.startMs)} ms burst)`,
    );
  }
  if (decisive === idle)
    return problems.length > 0
      ? fail(problems[0]!, evidence, notes)
      : skip('inconclusive', 'the procedure stopped before the reset', evidence, notes);

  // (2) The fresh quota after the announced reset: the last burst decides, those between were ambiguous.
  /** Admissions of the idle burst past a boundary inside it that a short first burst after the reset found counted. */
  const straddleExcess = decisive.admitted < limit ? straddledExcess(obs, summaries) : 0;
  const waitedS = summaries.at(-2)!.refusal?.retryAfterS ?? null;
  for (const [i, s] of summaries.entries()) {
    if (i === 0 || i === summaries.length - 1) continue;
    const why =
      summaries[i + 1]!.kind === 'rested'
        ? 'exactly what a sliding window allows while the slowly sent first burst ages out: repeated after a whole window of rest'
        : `${s.concurrency > 1 ? 'it had several requests in flight' : 'the next boundary may have fallen inside it'}: repeated`;
    notes.push(`a burst after a reset admitted ${s.admitted}, ${why}`);
  }
  if (decisive.stop !== 'not-readmitted' && decisive.refusedBeforeAdmission > 0) {
    notes.push(
      `${decisive.refusedBeforeAdmission} request(s) right after waiting the announced Retry-After were still refused (see ratelimit.retry_after_honoured)`,
    );
  }
  if (decisive.stop === 'not-readmitted')
    problems.push(
      `not admitted again within a window after the reset announced by Retry-After ${waitedS ?? '(missing)'}`,
    );
  else if (decisive.stop === 'cap')
    problems.push(`no refusal after ${decisive.admitted} requests after the reset (limit ${limit})`);
  else if (decisive.admitted > limit) {
    const bursts = summaries.length - 1;
    problems.push(
      `${decisive.admitted} admitted right after a reset; the limit is ${limit}${bursts > 1 ? ` (over the limit in all ${bursts} bursts after a reset)` : ''}`,
    );
  } else if (straddleExcess > 0) {
    notes.push(
      `after the reset ${decisive.admitted} of ${limit} were admitted: the idle burst's ${straddleExcess} past the limit may have fallen in the window after a boundary inside it, still open at the reset (judged by the continued load)`,
    );
  } else if (decisive.admitted < limit) {
    const finding = freshQuotaTooSmall(idle, decisive, decisive.kind === 'reset' ? waitedS : null, limit, windowMs);
    // A quota that refills gradually explains everything else: say it first.
    if (finding.gradual)
      return {
        ...fail(withMore([finding.text, ...problems]), { ...evidence, problems: [finding.text, ...problems] }, notes),
        findings: { quotaRefillsGradually: true },
      };
    problems.push(finding.text);
  }
  if (problems.length > 0) return fail(withMore(problems), { ...evidence, problems }, notes);

  // (3) Continued load.
  if (load === null) return skip('inconclusive', 'the continued-load step did not run', evidence, notes);
  if (load.problems.length > 0) {
    const failed = fail(withMore(load.problems), { ...evidence, problems: load.problems }, notes);
    return load.gradual ? { ...failed, findings: { quotaRefillsGradually: true } } : failed;
  }
  if (load.inconclusive !== null) return skip('inconclusive', load.inconclusive, evidence, notes);
  const bursts =
    straddleExcess === 0
      ? `exactly ${limit} admitted from idle and again after the announced reset`
      : `${idle.admitted} admitted from idle (a window boundary inside the burst) and ${decisive.admitted} after the announced reset: short by no more than the idle burst's ${straddleExcess} past the limit, counted in the window after that boundary`;
  return pass(
    `${bursts}; under ${load.rateDescription} no window admitted more than ${limit} and the client was admitted again at the reset`,
    evidence,
    notes,
  );
}

/**
 * The idle burst's admissions past the limit when they explain a short first burst after the
 * reset, else 0. When a window boundary fell inside the idle burst (it admitted more than the
 * limit, ambiguously), its admissions past the limit count in the window after that boundary; the
 * refusal, from the window before it, announces a reset that comes while the window after is still
 * open, and the burst then finds the limit less that excess. Only the first burst after the reset,
 * within a window of the idle burst's end; a quota that truly refills gradually still shows in the
 * continued load.
 */
function straddledExcess(obs: ThresholdObservation, summaries: readonly BurstSummary[]): number {
  const { limit, windowMs } = obs;
  const [idle, decisive] = summaries;
  if (summaries.length !== 2 || idle === undefined || decisive === undefined || decisive.kind !== 'reset') return 0;
  const excess = idle.admitted - limit;
  const explains =
    excess > 0 &&
    burstIsAmbiguous(obs.bursts[0]!, null, limit, windowMs) &&
    decisive.admitted >= limit - excess &&
    decisive.startMs < idle.endMs + windowMs;
  return explains ? excess : 0;
}

function withMore(problems: readonly string[]): string {
  return problems.length > 1
    ? `${problems[0]} (and ${problems.length - 1} more finding(s), see evidence)`
    : problems[0]!;
}

/** The fresh quota came back short: say whether it looks like a refilling bucket. */
function freshQuotaTooSmall(
  idle: BurstSummary,
  decisive: BurstSummary,
  waitedS: number | null,
  limit: number,
  windowMs: number,
): { gradual: boolean; text: string } {
  // The reset was announced sooner than a window ahead, and the quota was not whole by then.
  const gradual = waitedS !== null && waitedS * 1000 < windowMs;
  if (!gradual)
    return { gradual, text: `${decisive.admitted} admitted after waiting out the reset; the limit is ${limit}` };
  const spanMs = decisive.endMs - idle.startMs;
  const overAdmission =
    spanMs < windowMs
      ? `, so ${idle.admitted + decisive.admitted} were admitted within ${Math.round(spanMs)} ms, less than one window`
      : '';
  return {
    gradual,
    text: `after the announced reset (Retry-After ${waitedS} s) only ${decisive.admitted} of ${limit} were admitted: the quota refills gradually instead of resetting per window (token-bucket-like)${overAdmission}`,
  };
}

function burstEvidence(s: BurstSummary): Record<string, unknown> {
  return {
    kind: s.kind,
    inFlight: s.concurrency,
    startMs: s.startMs,
    endMs: s.endMs,
    admitted: s.admitted,
    ...(s.refusedBeforeAdmission > 0 && s.kind === 'reset' ? { refusedBeforeAdmission: s.refusedBeforeAdmission } : {}),
    ...(s.refusal ? { refusedAtMs: s.refusal.sentMs, retryAfterS: s.refusal.retryAfterS } : {}),
    ...(s.refusal?.retryAfterS != null ? { retryAtMs: announcedResetMs(s.refusal, 0) } : {}),
    stop: s.stop,
  };
}
