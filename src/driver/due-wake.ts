/**
 * Waking at a due moment on the run clock, never before it — for the timed loops (an open phase's
 * arrivals, a replay's calls: release-loop.ts) and an iteration's timed continuations (think times,
 * Retry-After back-offs: engine.ts).
 *
 * Node's timers run on the event loop's cached, whole-millisecond time and may fire up to about a
 * millisecond early against the run clock; so a timer is set a millisecond short and the last
 * stretch is spun out on setImmediate, re-checking the clock each turn: a send lands within tens
 * of microseconds of its due moment. But a spinning thread does nothing else useful, and once due
 * moments are less than the spin apart it spins all the time: an open phase at 1,000/s spent about
 * two thirds of its load's CPU spinning, and at 27,700/s the loop turned 32,000 times a second for
 * 0.85 arrivals a turn — 35 % more CPU per request than waking on timers, enough to fall behind a
 * rate one thread otherwise sustains.
 *
 * So the spin has a budget: at most SPIN_SHARE of the thread's recent time (an exponentially
 * decaying sum over SPIN_MEMORY_MS). Within it — any paced load up to about two hundred due moments a
 * second — waking is as precise as spinning makes it. Past it, the last stretch waits on a 1 ms
 * timer, and on the responses: the engine reports each one it reads (`nudgeDueWakes`), and a wake
 * due by then runs in that same turn of the event loop, after its I/O. Under a high rate responses
 * arrive every few tens of microseconds, so a send is about that late; between sparse responses it
 * is up to a millisecond or two late. Either way the lateness is recorded as schedule lag and
 * counted in latency from the due moment, as always, and a busy thread spends its time on requests.
 * The budget and the waiting wakes are per thread (module state): each load worker has its own.
 */

import { safeTimeout } from '../util/timers.ts';

/** Below this wait a timer is too coarse (whole milliseconds, possibly early): spin, or wait on the coarse timer. */
const SPIN_BELOW_MS = 1.5;
/** The largest share of the thread's recent time spent spinning toward due moments. */
const SPIN_SHARE = 0.2;
/** The memory of the spin budget: spin time decays with this time constant. */
const SPIN_MEMORY_MS = 100;
/** Two spin turns further apart than this are separate spins: the time between was not spun. */
const SPIN_TURN_GAP_MS = 2;
/** The coarse wait past the budget: Node's shortest timer. */
const COARSE_WAIT_MS = 1;

/** A wake waiting on the coarse timer, which a response read once it is due runs sooner. */
class CoarseWake {
  cancelled = false;
  timer: NodeJS.Timeout | null = null;
  constructor(
    readonly dueMs: number,
    readonly callback: () => void,
  ) {}
}

/** A pending wake, for cancelWake. */
export type WakeHandle = NodeJS.Timeout | NodeJS.Immediate | CoarseWake;

/** The wakes waiting on the coarse timer. */
const coarseWakes = new Set<CoarseWake>();

function runCoarse(wake: CoarseWake): void {
  if (wake.cancelled) return;
  wake.cancelled = true;
  coarseWakes.delete(wake);
  clearTimeout(wake.timer!);
  wake.callback();
}

/**
 * A response was read at `nowMs`: each coarse wake due by then runs in this turn's check phase
 * (never inside the caller's I/O callback), not at its timer.
 */
export function nudgeDueWakes(nowMs: number): void {
  if (coarseWakes.size === 0) return;
  for (const wake of coarseWakes) if (wake.dueMs <= nowMs) setImmediate(runCoarse, wake);
}

/**
 * Spin time charged (as of spinChargedAtMs, decaying from there), and when the last spin turn was
 * charged — on this thread's own clock (performance.now()), not the caller's: callers bring run
 * clocks of their own (each run's, each capacity step's, a test's), and a budget kept on whichever
 * clock called last would read another's times as far in the past or the future.
 */
let spunMs = 0;
let spinChargedAtMs = Number.NEGATIVE_INFINITY;

/**
 * Whether the thread may spin a turn now, within its budget; if so, the turn is charged: the time
 * since the last charged turn, when the thread has been spinning since (however many waiters spin
 * in the same turns, the thread's time is charged once).
 */
function spinWithinBudget(): boolean {
  const nowMs = performance.now();
  const sinceMs = nowMs - spinChargedAtMs;
  const decayedMs = spunMs * Math.exp(-sinceMs / SPIN_MEMORY_MS);
  if (decayedMs >= SPIN_SHARE * SPIN_MEMORY_MS) return false;
  spunMs = decayedMs + (sinceMs < SPIN_TURN_GAP_MS ? sinceMs : 0);
  spinChargedAtMs = nowMs;
  return true;
}

/**
 * Call `callback` at `dueMs` on the run clock (`nowMs` being the clock now), never before it as
 * far as the callback can tell: it must check the clock and call again while it is early.
 */
export function wakeAt(dueMs: number, nowMs: number, callback: () => void): WakeHandle {
  const waitMs = dueMs - nowMs;
  if (waitMs >= SPIN_BELOW_MS) return safeTimeout(callback, waitMs - 1);
  // (A wait that is not a number spins: it is no due moment to wait for, and charges nothing.)
  if (!(waitMs > 0) || spinWithinBudget()) return setImmediate(callback);
  const wake = new CoarseWake(dueMs, callback);
  wake.timer = setTimeout(runCoarse, COARSE_WAIT_MS, wake);
  coarseWakes.add(wake);
  return wake;
}

/** Cancel a wake that has not run. */
export function cancelWake(handle: WakeHandle): void {
  if (handle instanceof CoarseWake) {
    handle.cancelled = true;
    coarseWakes.delete(handle);
    clearTimeout(handle.timer!);
    return;
  }
  clearTimeout(handle as NodeJS.Timeout);
  clearImmediate(handle as NodeJS.Immediate);
}
