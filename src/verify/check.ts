/**
 * One conformance check: what it needs to run, and its procedure. Procedures gather plain
 * observation records and hand them to a pure verdict function (src/verify/verdicts/).
 */
import type { ClientNeed } from './client-pool.ts';
import type { CheckContext } from './check-context.ts';
import type { CheckId } from './check-ids.ts';
import type { Verdict } from './verdict.ts';
import type { VerifyConfig } from './config.ts';

export interface CheckDefinition {
  readonly id: CheckId;
  /** What the check needs with this configuration, or why it cannot run (→ skip with that reason). */
  plan(config: VerifyConfig, clientCount: number): CheckPlan | string;
  /** Run with the granted clients (in the order of `needs`). */
  run(check: CheckContext, clientIds: readonly string[]): Promise<CheckOutcome>;
}

export interface CheckPlan {
  readonly needs: readonly ClientNeed[];
  /**
   * The check counts one client's admissions exactly, so traffic of other checks on other
   * clients would disturb it if the server shared one quota across client IDs.
   */
  readonly countsQuota: boolean;
  /** Rough duration (ms): long checks are started first. */
  readonly estimateMs: number;
  /**
   * The check breaks the target for a while (its fault hook): it starts after every other check
   * has finished, and nothing else runs beside it.
   */
  readonly runsAlone?: boolean;
}

export interface CheckOutcome extends Verdict {
  /** What a check found that bears on how other checks' verdicts must be read. */
  readonly findings?: Findings;
}

export interface Findings {
  /** ratelimit.per_client: exhausting one client also got another refused. */
  readonly quotaShared?: boolean;
  /** ratelimit.threshold: the quota comes back gradually (token-bucket-like), not whole per window. */
  readonly quotaRefillsGradually?: boolean;
  /** The check failed on how many requests a window admitted (not on the form of a reply). */
  readonly failedOnCount?: boolean;
  /**
   * How the attempt from a rested client counted: `admitted` before its first refusal, decided
   * within `spanMs` (first send to the last response that counts), under `limit` per `windowMs`.
   * Lets a count be judged against a quota that refills gradually (see reconcile.ts).
   */
  readonly idleCount?: IdleCount;
}

export interface IdleCount {
  readonly admitted: number;
  readonly spanMs: number;
  readonly limit: number;
  readonly windowMs: number;
}
