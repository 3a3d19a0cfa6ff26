/**
 * Running one scheduled check to its outcome, whatever happens: within its deadline, on its own
 * signal, a throw turned into a skip, a verdict reached after a stop replaced by the stop's reason
 * (it rests on observations cut short), and a target that answers nothing at all heard once for
 * all the checks after it.
 */
import { setMaxListeners } from 'node:events';
import { describeError, RpcloadError } from '../errors.ts';
import { formatDurationMs } from '../util/duration.ts';
import { safeTimeout } from '../util/timers.ts';
import type { CheckOutcome } from './check.ts';
import { CheckContext, type VerifyContext } from './check-context.ts';
import type { CheckId } from './check-ids.ts';
import type { ScheduledCheck } from './scheduler.ts';
import { skip } from './verdict.ts';

/**
 * A target that does not answer at all: the first check it leaves target_broken by a timeout
 * speaks for every check after it, which would each wait out the same timeouts (minutes in all).
 */
export class SilentTarget {
  private readonly silence = new AbortController();
  private reason = '';

  /** Aborted once the target has been heard silent. */
  get signal(): AbortSignal {
    return this.silence.signal;
  }

  get heard(): boolean {
    return this.silence.signal.aborted;
  }

  /** A check not run because the target was silent before it. */
  skipped(): CheckOutcome {
    return skip('target_broken', this.reason);
  }

  /** The outcome as it is; a target_broken skip by a timeout is the silence the later checks are spared. */
  note(id: CheckId, outcome: CheckOutcome, byTimeout: boolean): CheckOutcome {
    if (!this.heard && outcome.verdict === 'skip' && outcome.skipClass === 'target_broken' && byTimeout) {
      this.reason = `not run: the target left ${id} unanswered until its timeout (${outcome.detail})`;
      this.silence.abort();
    }
    return outcome;
  }
}

/** What every check's execution shares. */
export interface CheckRun {
  readonly context: VerifyContext;
  /** The whole run's stop (Ctrl-C, the session's signal). */
  readonly stop: AbortSignal;
  readonly silent: SilentTarget;
  /** Each check's deadline (ms). */
  readonly deadlineMs: number;
  /** Told how long each check ran (ms). */
  readonly onDuration: (id: CheckId, ms: number) => void;
}

/** The check's own run, a throw as a skip: an RpcloadError is the target's doing, anything else ours. */
async function settle(
  check: ScheduledCheck,
  session: CheckContext,
  clientIds: readonly string[],
): Promise<CheckOutcome> {
  try {
    return await check.definition.run(session, clientIds);
  } catch (err) {
    return err instanceof RpcloadError
      ? skip('target_broken', err.message)
      : skip('internal_error', `internal error: ${describeError(err)}`);
  }
}

/** A verdict reached after a stop rests on observations cut short: the stop's reason instead; null when nothing stopped it. */
function cutShort(run: CheckRun, overdue: AbortSignal): CheckOutcome | null {
  if (run.stop.aborted) return skip('interrupted', 'interrupted');
  if (overdue.aborted)
    return skip(
      'target_broken',
      `not judged: the check did not finish within its ${formatDurationMs(run.deadlineMs)} deadline`,
    );
  if (run.silent.heard) return run.silent.skipped();
  return null;
}

/** Run one check on its granted clients to an outcome; never rejects. */
export async function executeCheck(
  run: CheckRun,
  check: ScheduledCheck,
  clientIds: readonly string[],
): Promise<CheckOutcome> {
  if (run.silent.heard) return run.silent.skipped();
  const overdue = new AbortController();
  const deadline = safeTimeout(() => overdue.abort(), run.deadlineMs);
  const signal = AbortSignal.any([run.stop, overdue.signal, run.silent.signal]);
  // Every request of a burst (100+ at once) listens on it while in flight: that is not a leak.
  setMaxListeners(0, signal);
  const session = new CheckContext({ ...run.context, signal });
  try {
    const outcome = await settle(check, session, clientIds);
    return run.silent.note(
      check.definition.id,
      cutShort(run, overdue.signal) ?? outcome,
      session.timedOut || overdue.signal.aborted,
    );
  } finally {
    clearTimeout(deadline);
    run.onDuration(check.definition.id, run.context.clock.now() - session.originMs);
  }
}
