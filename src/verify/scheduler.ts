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
 * its needs (a rested client of its own, or spare quota on a shared one). Checks that break the
 * target for a while (their fault hooks) run last, one at a time, alone. When the gate finds
 * one quota shared across client IDs, the quota-counting checks not yet started run one after
 * another, each alone on an idle shared window (every client rested, nothing else running), so
 * that no other check's traffic disturbs their counts; their notes say what that cost in time.
 */
export async function runScheduled(
  checks: readonly ScheduledCheck[],
  deps: SchedulerDeps,
): Promise<Map<CheckId, CheckOutcome>> {
  const { pool, signal } = deps;
  const outcomes = new Map<CheckId, CheckOutcome>();
  const pending = [...checks].sort(priority);
  const running = new Set<Promise<void>>();
  let gateOpen = !pending.some((c) => c.definition.id === GATE);
  let quotaShared = false;
  /** Shared quota: when the gate settled, and whether a check now runs alone on the shared window. */
  let sharedSinceMs = 0;
  let aloneRunning = false;
  let aloneRan = 0;
  let aloneEndMs = 0;
  /** A check that breaks the target (runsAlone) is running: nothing starts beside it. */
  let breakerRunning = false;
  const settle = (id: CheckId, outcome: CheckOutcome): void => {
    outcomes.set(id, outcome);
    deps.onSettled(id, outcome);
  };

  const start = (check: ScheduledCheck, lease: Lease, alone: boolean): void => {
    const { id } = check.definition;
    const startedMs = deps.clock.now();
    deps.onStart(id, lease.clientIds);
    if (alone) aloneRunning = true;
    if (check.plan.runsAlone === true) breakerRunning = true;
    const done = deps.execute(check, lease.clientIds).then((outcome) => {
      pool.release(lease);
      if (check.plan.runsAlone === true) breakerRunning = false;
      if (id === GATE) {
        gateOpen = true;
        quotaShared = outcome.findings?.quotaShared === true;
        sharedSinceMs = deps.clock.now();
      }
      if (alone) [aloneRunning, aloneRan, aloneEndMs] = [false, aloneRan + 1, deps.clock.now()];
      const waitedS = ((startedMs - sharedSinceMs) / 1000).toFixed(1);
      const note = `one quota is shared across client IDs (see ratelimit.per_client): run alone on an idle shared window, starting ${waitedS} s after that was found`;
      settle(id, alone ? { ...outcome, notes: [...(outcome.notes ?? []), note] } : outcome);
      running.delete(done);
    });
    running.add(done);
  };

  while (pending.length > 0 && !signal.aborted) {
    for (const check of [...pending]) {
      if (breakerRunning) break;
      // A check that breaks the target waits until every other check is done, then runs alone.
      if (check.plan.runsAlone === true && (running.size > 0 || pending.some((c) => c.plan.runsAlone !== true)))
        continue;
      const waitsForGate = check.plan.countsQuota && check.definition.id !== GATE;
      if (waitsForGate && !gateOpen) continue;
      // A shared quota: nothing starts beside a check running alone, which itself waits for an idle shared window.
      if (quotaShared && aloneRunning) continue;
      const alone = waitsForGate && quotaShared;
      if (alone && (running.size > 0 || (pool.sharedQuotaRestedAtMs() ?? Infinity) > deps.clock.now())) continue;
      // Rested clients are kept for the fresh needs still waiting (other than this check's own).
      const restedWanted = pending
        .filter((c) => c !== check)
        .reduce((sum, c) => sum + c.plan.needs.filter((n) => n.kind === 'fresh').length, 0);
      const lease = pool.tryLease(check.plan.needs, restedWanted);
      if (lease === null) continue;
      pending.splice(pending.indexOf(check), 1);
      start(check, lease, alone);
    }
    if (pending.length === 0) break;
    const sharedRestedAtMs = quotaShared && running.size === 0 ? pool.sharedQuotaRestedAtMs() : null;
    const wakeAtMs =
      sharedRestedAtMs !== null && sharedRestedAtMs > deps.clock.now() ? sharedRestedAtMs : pool.nextRestedAtMs();
    if (running.size === 0 && wakeAtMs === null) {
      for (const check of pending.splice(0))
        settle(check.definition.id, skip('not_applicable', 'no client could be granted for this check'));
      break;
    }
    await nextEvent(running, wakeAtMs, deps.clock, signal);
  }
  await Promise.all(running);
  for (const check of pending) settle(check.definition.id, skip('interrupted', 'interrupted before it started'));
  const gate = outcomes.get(GATE);
  if (gate !== undefined && aloneRan > 0) {
    const extraS = ((aloneEndMs - sharedSinceMs) / 1000).toFixed(1);
    const note = `the other ${aloneRan} quota-counting check(s) then ran one after another, each alone on an idle shared window: ${extraS} s after this check`;
    settle(GATE, { ...gate, notes: [...(gate.notes ?? []), note] });
  }
  return outcomes;
}

/** Resolve when a running check settles, a client becomes rested, or the run is aborted. */
async function nextEvent(
  running: ReadonlySet<Promise<void>>,
  wakeAtMs: number | null,
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  const timer = new AbortController();
  const onAbort = (): void => timer.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const waits: Promise<unknown>[] = [
    ...running,
    new Promise((resolve) => timer.signal.addEventListener('abort', resolve, { once: true })),
  ];
  if (wakeAtMs !== null) waits.push(safeDelay(Math.ceil(wakeAtMs - clock.now()), timer.signal).catch(() => undefined));
  try {
    await Promise.race(waits);
  } finally {
    timer.abort();
    signal.removeEventListener('abort', onAbort);
  }
}
