/**
 * The `capacity` record of a search's result file, from its settings, how the search ended, every
 * judged step and the confirmation: the answer and its bracket (capacity-answer.ts), the rate at
 * it, the one-line finding (capacity-finding.ts) with the quota arithmetic when the quotas limited
 * it, the SLO lines, the USL fit of a closed search and every step. Pure.
 */
import type { CapacityRecord } from '../../contract/capacity-schema.ts';
import type { CapacityPlan } from '../../profile/capacity-settings.ts';
import { capacityAnswer, type Attempt, type SearchEnd } from './capacity-answer.ts';
import { capacityFinding, type NamedWorkload, type SearchedUnit } from './capacity-finding.ts';
import { busiestAtOne, quotaUseText } from './client-quota.ts';
import { CLIENT_RATE_LINE, QUOTA_LINE, THROUGHPUT_LINE, type JudgedStep } from './judge-step.ts';
import { fitUsl } from './usl.ts';

/** What the confirmation came to: the load it last held, whether that passed, and where it started (the found load). */
export interface ConfirmationOutcome {
  readonly load: number;
  readonly passed: boolean;
  readonly found: number;
}

export interface CapacityRecordInput {
  readonly cap: CapacityPlan;
  /** A replay's calls per second at speed 1 (its loads are speeds); null for a synthetic load. */
  readonly replayPerSpeed: number | null;
  readonly end: SearchEnd;
  /** Every judged step, search and confirmation, in order (retried attempts marked so). */
  readonly steps: readonly JudgedStep[];
  readonly confirmation: ConfirmationOutcome | null;
  /**
   * The SLO lines as judged (the profile's capacity.slo, else its thresholds; scoped to the
   * workload searched beside others).
   */
  readonly sloLines: readonly string[];
  /** The workload searched, and whether the answer names it (the profile has several); absent: not said. */
  readonly workload?: { readonly name: string; readonly named: boolean; readonly rateNoun: NamedWorkload['rateNoun'] };
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

export function capacityRecord(input: CapacityRecordInput): CapacityRecord {
  const { cap, replayPerSpeed, confirmation } = input;
  const model = cap.model;
  const counted = input.steps.filter((s) => s.record.retried !== true);
  const attempt = ({ record, limit }: JudgedStep): Attempt => ({
    kind: record.kind,
    load: record.load,
    verdict: record.verdict,
    limit,
  });
  const found = capacityAnswer(
    input.end,
    counted.filter((s) => s.record.kind === 'search').map(attempt),
    counted.filter((s) => s.record.kind === 'confirm').map(attempt),
  );
  const { answer, decisive } = found;
  const answerStep = counted.find(
    (s) =>
      s.record.load === answer &&
      s.record.verdict === 'pass' &&
      s.record.kind === (found.confirmed ? 'confirm' : 'search'),
  );
  const ratePerS =
    answer === null
      ? null
      : model === 'closed'
        ? (answerStep?.record.achievedPerS ?? null)
        : replayPerSpeed === null
          ? answer
          : round3(answer * replayPerSpeed);
  const searched: SearchedUnit = replayPerSpeed === null ? model : 'replay';
  const decisiveQuota =
    decisive === null || found.limitedBy !== 'client quota'
      ? null
      : (counted.find((s) => s.record.kind === decisive.kind && s.record.load === decisive.load && s.limit !== null)
          ?.quota ?? null);
  const atOne = busiestAtOne(counted.map((s) => ({ load: s.record.load, quota: s.quota })));
  const search = counted.map((s) => s.record).filter((r) => r.kind === 'search');
  return {
    model,
    ...(input.workload === undefined ? {} : { workload: input.workload.name }),
    ratePerS,
    ...(model === 'closed' ? { concurrency: answer } : {}),
    ...(replayPerSpeed === null ? {} : { speed: answer }),
    atLeast: found.atLeast,
    bracket: [...found.bracket],
    limitedBy: found.limitedBy,
    finding: capacityFinding({
      searched,
      answer: found,
      ratePerS,
      steps: input.steps.map((s) => s.record),
      quotaText:
        decisiveQuota === null
          ? null
          : quotaUseText(decisiveQuota, searched === 'replay' ? decisive!.load : null, atOne),
      workload:
        input.workload?.named === true ? { name: input.workload.name, rateNoun: input.workload.rateNoun } : null,
    }),
    slo: [
      ...input.sloLines,
      ...(model === 'open' ? [THROUGHPUT_LINE] : []),
      ...(cap.include429 ? [] : [QUOTA_LINE.expr, ...(searched === 'replay' ? [CLIENT_RATE_LINE] : [])]),
    ],
    confirmation:
      confirmation === null
        ? null
        : {
            load: confirmation.load,
            holdS: cap.confirmMs / 1000,
            passed: confirmation.passed,
            steppedDownFrom: confirmation.load === confirmation.found ? null : confirmation.found,
          },
    search: {
      start: cap.start,
      factor: cap.factor,
      tolerance: cap.tolerance,
      warmUpS: cap.warmUpMs / 1000,
      holdS: cap.holdMs / 1000,
      confirmS: cap.confirmMs / 1000,
      maxLagMs: cap.maxLagMs,
      include429: cap.include429,
    },
    steps: input.steps.map((s) => s.record),
    usl:
      model === 'closed'
        ? fitUsl(search.filter((s) => s.verdict !== 'generator-bound').map((s) => ({ n: s.load, x: s.achievedPerS })))
        : undefined,
  };
}
