/**
 * The wake thread (started by wake-thread.ts): it sleeps in Atomics.wait until the instant the main
 * thread last wrote into shared memory, then sends it one message. Atomics.wait sleeps on a futex
 * with a sub-millisecond timeout, where the main thread's own timers run on a whole-millisecond
 * clock. This thread never returns to its event loop; its only work is that loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WAKE_LAYOUT, type WakeThreadData } from './wake-thread.ts';

const { shared } = workerData as WakeThreadData;
const control = new Int32Array(shared, 0, WAKE_LAYOUT.controlSlots);
const target = new Float64Array(shared, WAKE_LAYOUT.targetByteOffset, 1);
const port = parentPort!;
const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

port.postMessage(WAKE_LAYOUT.readyMessage);
for (;;) {
  const seq = Atomics.load(control, WAKE_LAYOUT.seq);
  const atMs = target[0]!;
  if (Number.isNaN(atMs)) {
    Atomics.wait(control, WAKE_LAYOUT.seq, seq);
    continue;
  }
  const remainingMs = atMs - nowMs();
  if (remainingMs > 0) {
    // Woken early by a new instant (seq changed), or at the timeout: either way, read again.
    Atomics.wait(control, WAKE_LAYOUT.seq, seq, remainingMs);
    continue;
  }
  // Due. Taking the sequence number consumes this instant; a new one written meanwhile wins instead.
  if (Atomics.compareExchange(control, WAKE_LAYOUT.seq, seq, seq + 1) !== seq) continue;
  port.postMessage(WAKE_LAYOUT.dueMessage);
  // The instant stays written until the main thread writes the next: sleep until it does, not fire
  // the same instant again. (The thread ends with the process, which it never keeps alive.)
  Atomics.wait(control, WAKE_LAYOUT.seq, seq + 1);
}
