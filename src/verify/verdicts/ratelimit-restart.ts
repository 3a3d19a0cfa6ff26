/**
 * `ratelimit.restart`: a restart (the fault hook, then the heal hook) does not hand out a fresh
 * budget. A client spent its quota before the restart; after it, the client must still be refused
 * until the reset its refusal announced. Admissions sent before the earliest moment that reset can
 * be fail the check, with their count.
 */
import type { CheckOutcome } from '../check.ts';
import type { RoundTrip } from '../round-trip.ts';
import { fail, pass, skip } from '../verdict.ts';
import { hookProblem, type HookRun } from './hook-runs.ts';
import { outageAnswerOf } from './ratelimit-store-outage.ts';
import { resetLowerBoundMs, tooSlowToJudge } from './window-bounds.ts';

export interface RestartObservation {
  readonly limit: number;
  readonly windowMs: number;
  readonly hookTimeoutMs: number;
  /** The quota spent before the restart: one at a time until the first refusal. */
  readonly spent: readonly RoundTrip[];
  readonly spentStop: 'refused' | 'failed' | 'cap';
  readonly fault: HookRun | null;
  readonly heal: HookRun | null;
  /** Every request after the heal, until the announced reset. */
  readonly after: readonly RoundTrip[];
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** From when an admission after the restart may be the announced reset's, not the restart's doing. */
export function restartResetFromMs(spent: readonly RoundTrip[], windowMs: number): number | null {
  const refusal = spent.find((e) => e.admission === 'refused');
  const opener = spent.find((e) => e.admission === 'admitted');
  if (refusal === undefined) return null;
  return refusal.retryAfterS !== null || opener === undefined ? resetLowerBoundMs(refusal) : opener.sentMs + windowMs;
}

export function judgeRestart(obs: RestartObservation): CheckOutcome {
  const { limit, windowMs } = obs;
  const spentAdmitted = obs.spent.filter((e) => e.admission === 'admitted').length;
  const refusal = obs.spent.find((e) => e.admission === 'refused') ?? null;
  const resetFromMs = restartResetFromMs(obs.spent, windowMs);
  const before = obs.after.filter((e) => resetFromMs !== null && e.sentMs < resetFromMs);
  const answers = { admitted: 0, refused: 0, unavailable: 0, failed: 0 };
  for (const e of before) answers[outageAnswerOf(e)]++;
  const firstAdmission = before.find((e) => outageAnswerOf(e) === 'admitted');
  const evidence: Record<string, unknown> = {
    limit,
    windowMs,
    spentBeforeRestart: spentAdmitted,
    ...(refusal === null ? {} : { refusedAtMs: refusal.sentMs, retryAfterS: refusal.retryAfterS }),
    ...(resetFromMs === null ? {} : { resetNotBeforeMs: resetFromMs }),
    ...(obs.fault ? { fault: obs.fault } : {}),
    ...(obs.heal ? { heal: obs.heal } : {}),
    afterRestart: {
      sent: obs.after.length,
      beforeReset: before.length,
      ...answers,
      ...(firstAdmission === undefined ? {} : { firstAdmittedAtMs: firstAdmission.sentMs }),
    },
  };
  if (obs.spentStop === 'failed')
    return skip(
      'target_broken',
      `before the restart, a request got no verdict from the limiter (${obs.spent.at(-1)?.outcome ?? '?'})`,
      evidence,
    );
  if (refusal === null || resetFromMs === null)
    return skip(
      'inconclusive',
      tooSlowToJudge(obs.spent, limit, windowMs) ??
        `no refusal after ${spentAdmitted} requests: no spent budget to restart (see ratelimit.threshold)`,
      evidence,
    );
  const hookFailure = [obs.fault, obs.heal]
    .flatMap((run) => (run === null ? [] : [hookProblem(run, obs.hookTimeoutMs)]))
    .find((p) => p !== null);
  if (obs.fault === null || obs.heal === null || hookFailure !== undefined)
    return skip('target_broken', hookFailure ?? 'the restart hooks did not run', evidence);
  const healedAtMs = obs.heal.startedMs + obs.heal.durationMs;
  if (healedAtMs >= resetFromMs)
    return skip(
      'inconclusive',
      `the restart took until ${seconds(healedAtMs)}, past the reset the refusal announced (not before ${seconds(resetFromMs)}): nothing left to judge — a longer --window leaves room`,
      evidence,
    );
  const notes =
    answers.unavailable + answers.failed > 0
      ? [`after the restart, ${answers.unavailable} answer(s) were 5xx and ${answers.failed} got no answer`]
      : [];
  if (answers.admitted > 0)
    return fail(
      `the restart handed out a fresh budget: ${answers.admitted} admitted after it (the first at ${seconds(firstAdmission!.sentMs)}), before the reset announced by the refusal before it (not before ${seconds(resetFromMs)})`,
      evidence,
      notes,
    );
  if (answers.refused === 0)
    return skip(
      'target_broken',
      `no answer from the limiter after the restart until the announced reset (${before.length} request(s): 5xx or none)`,
      evidence,
      notes,
    );
  return pass(
    `still refused after the restart: ${answers.refused} request(s) from ${seconds(healedAtMs)} until the announced reset (not before ${seconds(resetFromMs)}) were all refused`,
    evidence,
    notes,
  );
}
