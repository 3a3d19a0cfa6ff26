/**
 * due-wake.ts: the last stretch before a due moment is spun out on setImmediate only within the
 * thread's spin budget; past it the wake waits on a 1 ms timer, and a response read once the
 * moment is due runs it in that turn's check phase. Real timers and a real clock.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { cancelWake, nudgeDueWakes, wakeAt, type WakeHandle } from '../../src/driver/due-wake.ts';

type Kind = 'spin' | 'coarse' | 'timer';
const kindOf = (handle: WakeHandle): Kind =>
  handle.constructor.name === 'Immediate' ? 'spin' : handle.constructor.name === 'CoarseWake' ? 'coarse' : 'timer';

/** Long enough idle for any earlier spin (another test file in this worker) to have decayed from the budget. */
const IDLE_MS = 400;
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Ask for a wake 1 ms ahead, again and again, for `forMs`: a paced load whose due moments are closer
 * than a timer can wait. Returns each wake's kind.
 */
async function demandWakes(forMs: number): Promise<{ kinds: Kind[] }> {
  const kinds: Kind[] = [];
  const startMs = performance.now();
  while (performance.now() - startMs < forMs) {
    const nowMs = performance.now();
    let kind = 'timer' as Kind; // set inside the promise's executor
    await new Promise<void>((resolve) => (kind = kindOf(wakeAt(nowMs + 1, nowMs, resolve))));
    kinds.push(kind);
  }
  return { kinds };
}

/**
 * A wake `aheadMs` ahead on the coarse timer: the budget spent first by a stretch of demand (it
 * recovers within a millisecond or two, so the last demand may still find it; then again).
 */
async function coarseWake(aheadMs: number, callback: () => void): Promise<{ wake: WakeHandle; dueMs: number }> {
  await demandWakes(40);
  for (;;) {
    const nowMs = performance.now();
    const wake = wakeAt(nowMs + aheadMs, nowMs, callback);
    if (kindOf(wake) === 'coarse') return { wake, dueMs: nowMs + aheadMs };
    cancelWake(wake);
    await demandWakes(3);
  }
}

describe('waking at a due moment', () => {
  it('spins within the budget, waits on the coarse timer past it, and spins again once the thread has been idle', async () => {
    await sleep(IDLE_MS);
    const { kinds } = await demandWakes(150);
    expect(kinds[0]).toBe('spin');
    expect(kinds).toContain('coarse');
    // Past the budget most wakes are coarse: spinning throughout would make every one a spin.
    // (How long the spins took is not judged: a busy machine descheduling the test mid-spin
    // stretches them, and the budget rightly does not charge what it did not spin.)
    expect(kinds.filter((k) => k === 'coarse').length).toBeGreaterThanOrEqual(3);
    await sleep(IDLE_MS);
    expect((await demandWakes(2)).kinds[0]).toBe('spin');
  });

  it("keeps the budget on the thread's clock, whatever clocks the callers bring (each run has its own)", async () => {
    await sleep(IDLE_MS);
    // A caller whose clock reads far ahead of performance.now() (a run clock of another origin) …
    for (const nowMs of [1e12, 1e12 + 0.5, -1e12]) cancelWake(wakeAt(nowMs + 1, nowMs, () => undefined));
    // … leaves a budget that still runs out and comes back.
    expect((await demandWakes(150)).kinds).toContain('coarse');
    await sleep(IDLE_MS);
    expect((await demandWakes(2)).kinds[0]).toBe('spin');
  });

  it('waits on a timer a millisecond short when the moment is further off, and runs at once when it is due', async () => {
    await sleep(IDLE_MS);
    const nowMs = performance.now();
    const far = wakeAt(nowMs + 50, nowMs, () => undefined);
    expect(kindOf(far)).toBe('timer');
    cancelWake(far);
    let ran = false;
    expect(kindOf(wakeAt(nowMs - 1, nowMs, () => (ran = true)))).toBe('spin');
    await turn();
    expect(ran).toBe(true);
  });

  it('past the budget, a response read once the moment is due runs the wake in that turn, never inside the caller', async () => {
    await sleep(IDLE_MS);
    let ran = 0;
    const { dueMs } = await coarseWake(0.5, () => ran++);
    nudgeDueWakes(dueMs - 0.4); // a response before the moment: nothing runs
    await turn();
    expect(ran).toBe(0);
    while (performance.now() < dueMs); // the moment passes (no turn of the loop in between)
    nudgeDueWakes(performance.now());
    nudgeDueWakes(performance.now()); // a second response in the same turn: still one run
    expect(ran).toBe(0); // not inside the caller's I/O callback
    await turn(); // this turn's check phase: the nudge's immediate was queued first
    expect(ran).toBe(1);
    await sleep(5); // and its timer, cleared, never runs it again
    expect(ran).toBe(1);
  });

  it('a cancelled wake never runs, by its timer or by a response', async () => {
    await sleep(IDLE_MS);
    let ran = false;
    const { wake } = await coarseWake(0.2, () => (ran = true));
    cancelWake(wake);
    await sleep(1);
    nudgeDueWakes(performance.now());
    await sleep(5);
    expect(ran).toBe(false);
  });
});
