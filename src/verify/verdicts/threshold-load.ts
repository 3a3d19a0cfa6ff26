/**
 * Step 3 of `ratelimit.threshold`: load at twice the contract rate right after the decisive
 * burst, not honouring 429s. Windows are delimited by what the server did (refusal streaks and
 * the Retry-After they announced), never by client-side sliding spans: send times jitter, and a
 * request sent just before a boundary may be counted just after it. Where requests are counted
 * within a window, only those surely inside it by their send and receipt times count.
 */
import type { RoundTrip } from '../round-trip.ts';
import type { BurstSummary, ThresholdObservation } from './threshold-records.ts';
import { announcedResetMs, resetLowerBoundMs } from './window-bounds.ts';

/** Clock granularity between our monotonic clock and the server's (ms). */
const EPSILON_MS = 5;

interface Period {
  readonly admitted: boolean;
  readonly roundTrips: readonly RoundTrip[];
}

export interface LoadFindings {
  readonly problems: string[];
  /** Re-admissions that fit neither a fixed nor a sliding window: the quota refills gradually. */
  readonly gradual: boolean;
  /** Set when the load did not run long enough to judge (a procedure problem, not the server's). */
  readonly inconclusive: string | null;
  readonly evidence: Record<string, unknown>;
  readonly rateDescription: string;
}

/** Split a sequence into alternating runs of admissions and refusals. */
function periodsOf(roundTrips: readonly RoundTrip[]): Period[] {
  const periods: { admitted: boolean; roundTrips: RoundTrip[] }[] = [];
  for (const roundTrip of roundTrips) {
    if (roundTrip.admission === 'failed') continue;
    const admitted = roundTrip.admission === 'admitted';
    const current = periods.at(-1);
    if (current !== undefined && current.admitted === admitted) current.roundTrips.push(roundTrip);
    else periods.push({ admitted, roundTrips: [roundTrip] });
  }
  return periods;
}

export function loadFindings(obs: ThresholdObservation, summaries: readonly BurstSummary[]): LoadFindings {
  const { limit, windowMs } = obs;
  const load = obs.load!;
  const decisiveBurst = obs.bursts.at(-1)!;
  const decisive = summaries.at(-1)!;
  const previousRefusal = summaries.at(-2)?.refusal ?? null;
  const polled = decisiveBurst.roundTrips.slice(0, decisive.refusedBeforeAdmission);
  // The burst is one open period then the start of a refusal streak, whatever order requests in
  // flight together were answered in: its admissions first, then its refusals as received.
  const burstTail = decisiveBurst.roundTrips.slice(decisive.refusedBeforeAdmission);
  const sequence = [
    ...burstTail.filter((e) => e.admission === 'admitted'),
    ...burstTail.filter((e) => e.admission === 'refused').sort((a, b) => a.doneMs - b.doneMs),
    ...load.roundTrips,
  ];
  const periods = periodsOf(sequence);
  // Each rule reports its first violation, and how often it was broken.
  const found = new Map<string, { text: string; times: number }>();
  const problem = (rule: string, text: string): void => {
    const seen = found.get(rule);
    if (seen) seen.times++;
    else found.set(rule, { text, times: 1 });
  };
  let inconclusive: string | null = null;
  // The earliest moment the reset that opened the latest open period can have happened.
  const lastBefore = polled.at(-1) ?? previousRefusal;
  let openedNoEarlierThanMs = lastBefore === null ? Number.NEGATIVE_INFINITY : resetLowerBoundMs(lastBefore);
  let lastRefusedSentMs = Number.NEGATIVE_INFINITY;
  const periodEvidence: Record<string, unknown>[] = [];

  const admissions = sequence.filter((e) => e.admission === 'admitted');
  for (const [index, period] of periods.entries()) {
    const first = period.roundTrips[0]!;
    const last = period.roundTrips.at(-1)!;
    const count = period.roundTrips.length;
    if (period.admitted) {
      periodEvidence.push({ admitted: count, fromMs: first.sentMs, toMs: last.doneMs });
      if (index === 0) continue; // the decisive burst: judged by step 2
      // Answered before a window had passed since the first was sent: all within one window.
      const inOneWindow = period.roundTrips.filter((e) => e.doneMs < first.sentMs + windowMs).length;
      if (inOneWindow > limit)
        problem(
          'over',
          `${inOneWindow} admitted within a window from ${first.sentMs} ms without a refusal; the limit is ${limit}`,
        );
      // A re-admission must fit a fixed window (a reset at least a window after the last one) or a
      // sliding one (fewer than `limit` admissions surely within the window before it).
      const surelyWithinWindow = admissions.filter(
        (e) => e !== first && e.sentMs > first.doneMs - windowMs && e.doneMs < first.sentMs,
      ).length;
      if (first.doneMs < openedNoEarlierThanMs + windowMs - EPSILON_MS && surelyWithinWindow >= limit) {
        problem(
          'gradual',
          `admitted again at ${first.sentMs} ms, less than a window after the previous quota opened (not before ${Math.round(openedNoEarlierThanMs)} ms) and with ${surelyWithinWindow} admitted in the window before: the quota comes back gradually (token-bucket-like), not per window`,
        );
      }
      openedNoEarlierThanMs = lastRefusedSentMs;
      continue;
    }
    const opener = periods[index - 1]!.roundTrips[0]!;
    // The later of what the server announced and one window after the quota before it opened.
    const resetBoundMs = Math.max(announcedResetMs(first, windowMs), opener.doneMs + windowMs);
    periodEvidence.push({
      refused: count,
      fromMs: first.sentMs,
      toMs: last.doneMs,
      firstRetryAfterS: first.retryAfterS,
      lastRetryAfterS: last.retryAfterS,
      resetByMs: Math.round(resetBoundMs),
    });
    if (last.sentMs > resetBoundMs + EPSILON_MS) {
      problem(
        'extended',
        `still refused at ${last.sentMs} ms although the refusal at ${first.sentMs} ms (Retry-After ${first.retryAfterS ?? 'missing'}) announced the reset by ${Math.round(resetBoundMs)} ms: retrying while throttled extended the block (last Retry-After ${last.retryAfterS ?? 'missing'})`,
      );
    } else if (index === 1 && periods.length === 2) {
      inconclusive = `the continued load ended at ${last.sentMs} ms, before the reset due by ${Math.round(resetBoundMs)} ms`;
    }
    lastRefusedSentMs = last.sentMs;
  }

  const sent = load.roundTrips.length;
  const startMs = load.roundTrips[0]?.sentMs ?? 0;
  const endMs = load.roundTrips.at(-1)?.doneMs ?? 0;
  const ratePerS = 1000 / load.intervalMs;
  // The most telling first.
  const order = ['gradual', 'over', 'extended'];
  const problems = order.flatMap((rule) => {
    const f = found.get(rule);
    return f === undefined ? [] : [f.times > 1 ? `${f.text} (${f.times} times)` : f.text];
  });
  return {
    problems,
    gradual: found.has('gradual'),
    inconclusive,
    rateDescription: `${Number(ratePerS.toFixed(2))} req/s (twice the contract rate) for ${((endMs - startMs) / 1000).toFixed(1)} s`,
    evidence: {
      intervalMs: load.intervalMs,
      startMs,
      endMs,
      sent,
      admitted: load.roundTrips.filter((e) => e.admission === 'admitted').length,
      refused: load.roundTrips.filter((e) => e.admission === 'refused').length,
      failed: load.roundTrips.filter((e) => e.admission === 'failed').length,
      periods: periodEvidence,
    },
  };
}
