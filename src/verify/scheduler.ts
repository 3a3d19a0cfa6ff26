/** Runs the verify checks concurrently, each as soon as the client pool can grant what it needs. */
import { safeDelay } from '../util/timers.ts';
import type { CheckDefinition, CheckOutcome, CheckPlan } from './check.ts';
import type { ClientPool, Lease } from './client-pool.ts';
import type { Clock } from './clock.ts';
import { skip } from './verdict.ts';
import type { CheckId } from './check-ids.ts';

/** A check that can run with this configuration, and what it needs. */
export interface ScheduledCheck {
  readonly definition: CheckDefinition;
  readonly plan: CheckPlan;
}

export interface SchedulerDeps {
  readonly pool: ClientPool;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  /** Run one check on the granted clients; never rejects. */
  readonly execute: (check: ScheduledCheck, clientIds: readonly string[]) => Promise<CheckOutcome>;
  /** A check was started (with these clients) or was settled without running. */
  readonly onStart: (id: CheckId, clientIds: readonly string[]) => void;
  readonly onSettled: (id: CheckId, outcome: CheckOutcome) => void;
}

/** The check that finds out whether client IDs have separate quotas; the quota-counting checks wait for it. */
const GATE: CheckId = 'ratelimit.per_client';

/** Gate first, then the longest checks (they set the suite's wall time), then the table's order. */
function priority(a: ScheduledCheck, b: ScheduledCheck): number {
  if (a.definition.id === GATE || b.definition.id === GATE) return a.definition.id === GATE ? -1 : 1;
  return b.plan.estimateMs - a.plan.estimateMs;
}

/**
 * Run the checks concurrently over the client IDs: each starts as soon as the pool can grant
 * its needs (a rested client of its own, or spare quota on a shared one). When the gate finds
 * one quota shared across client IDs, the quota-counting checks not yet started are skipped:
 * their counts would be disturbed by the other checks' traffic.
 */
export async function runScheduled(checks: readonly ScheduledCheck[], deps: SchedulerDeps): Promise<Map<CheckId, CheckOutcome>> {
  const { pool, signal } = deps;
  const outcomes = new Map<CheckId, CheckOutcome>();
  const pending = [...checks].sort(priority);
  const running = new Set<Promise<void>>();
  let gateOpen = !pending.some((c) => c.definition.id === GATE);
  let quotaShared = false;
  const settle = (id: CheckId, outcome: CheckOutcome): void => {
    outcomes.set(id, outcome);
    deps.onSettled(id, outcome);
  };

  const start = (check: ScheduledCheck, lease: Lease): void => {
    const { id } = check.definition;
    deps.onStart(id, lease.clientIds);
    const done = deps.execute(check, lease.clientIds).then((outcome) => {
      pool.release(lease);
      if (id === GATE) {
        gateOpen = true;
        quotaShared = outcome.findings?.quotaShared === true;
      }
      settle(id, outcome);
      running.delete(done);
    });
    running.add(done);
  };

  while (pending.length > 0 && !signal.aborted) {
    for (const check of [...pending]) {
      const waitsForGate = check.plan.countsQuota && check.definition.id !== GATE;
      if (waitsForGate && !gateOpen) continue;
      if (waitsForGate && quotaShared) {
        pending.splice(pending.indexOf(check), 1);
        settle(
          check.definition.id,
          skip(
            'inconclusive',
            'not judged: one quota is shared across client IDs (see ratelimit.per_client), so checks on other clients would disturb its counts; run it alone with --only',
          ),
        );
        continue;
      }
      // Rested clients are kept for the fresh needs still waiting (other than this check's own).
      const restedWanted = pending
        .filter((c) => c !== check)
        .reduce((sum, c) => sum + c.plan.needs.filter((n) => n.kind === 'fresh').length, 0);
      const lease = pool.tryLease(check.plan.needs, restedWanted);
      if (lease === null) continue;
      pending.splice(pending.indexOf(check), 1);
      start(check, lease);
    }
    if (pending.length === 0) break;
    const wakeAtMs = pool.nextRestedAtMs();
    if (running.size === 0 && wakeAtMs === null) {
      for (const check of pending.splice(0))
        settle(check.definition.id, skip('not_applicable', 'no client could be granted for this check'));
      break;
    }
    await nextEvent(running, wakeAtMs, deps.clock, signal);
  }
  await Promise.all(running);
  for (const check of pending) settle(check.definition.id, skip('interrupted', 'interrupted before it started'));
  return outcomes;
}

/** Resolve when a running check settles, a client becomes rested, or the run is aborted. */
async function nextEvent(running: ReadonlySet<Promise<void>>, wakeAtMs: number | null, clock: Clock, signal: AbortSignal): Promise<void> {
  const timer = new AbortController();
  const onAbort = (): void => timer.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const waits: Promise<unknown>[] = [...running, new Promise((resolve) => timer.signal.addEventListener('abort', resolve, { once: true }))];
  if (wakeAtMs !== null) waits.push(safeDelay(Math.ceil(wakeAtMs - clock.now()), timer.signal).catch(() => undefined));
  try {
    await Promise.race(waits);
  } finally {
    timer.abort();
    signal.removeEventListener('abort', onAbort);
  }
}
