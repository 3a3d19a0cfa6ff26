/**
 * Wakes at sub-millisecond instants without spinning the event loop. Node's timers run on a
 * whole-millisecond loop clock and may fire up to a millisecond early, so a wake that must never
 * be late (an open model's next arrival: its latency counts from the instant it is due) sets its
 * timer a millisecond short and spends the rest in turns of the event loop (timers.ts). Those turns
 * cost about a millisecond of a core per wake: at 400 arrivals/s, half a core spent waiting.
 *
 * A helper thread (wake-thread-entry.ts) sleeps in Atomics.wait, whose timeout is a futex's, until
 * a short lead before the earliest pending instant, and wakes this thread's event loop with a
 * message; the caller turns the loop for that lead only. The lead follows how late the messages
 * come (it rises at once to cover a late one, then decays), within [MIN_LEAD_MS, MAX_LEAD_MS].
 *
 * The thread starts after START_AFTER_WAKES waits long enough to use it: a short or slow run never
 * pays for starting one. Until it is ready, or if it cannot start or dies, `wake` returns null and
 * the caller uses timers as before. While a wake is pending a fallback timer, FALLBACK_LATE_MS
 * after its instant, keeps the process alive and fires it should the thread not.
 */
import { startModuleWorker } from './module-worker.ts';

/** Where the two threads meet in shared memory, and the messages the helper thread sends. */
export const WAKE_LAYOUT = {
  /** Int32 slot the helper sleeps on: bumped by each new instant, and by the helper as it fires. */
  seq: 0,
  controlSlots: 1,
  /** A Float64 after the Int32 slot: when to send the next message (process.hrtime, ms); NaN for never. */
  targetByteOffset: 8,
  bytes: 16,
  readyMessage: 0,
  dueMessage: 1,
} as const;

export interface WakeThreadData {
  readonly shared: SharedArrayBuffer;
}

/** A wake pending on the helper thread, as `wake` returns it for `cancel`. */
export class ThreadWake {
  /** Its place in the heap of pending wakes; -1 once fired or cancelled. */
  index = -1;
  /** The timer it was moved to when the helper failed. */
  timer: NodeJS.Timeout | undefined;
  constructor(
    /** The instant, on the process.hrtime clock in ms. */
    readonly atMs: number,
    readonly callback: () => void,
  ) {}
}

const MIN_LEAD_MS = 0.05;
const MAX_LEAD_MS = 1;
/** Added to the latest lateness seen: the lead then covers a message a little later than that one. */
const LEAD_MARGIN_MS = 0.1;
/**
 * Per message, the lead shrinks by 5 % towards how late messages come now: after one 1 ms late,
 * it is back to 0.25 ms in 27.
 */
const LEAD_DECAY = 0.95;
/**
 * A wait shorter than this is left to the caller's turns of the event loop even with a lead below
 * it. At 2,000 arrivals/s (0.5 ms apart) the helper saved no CPU — the loop is seldom idle that long
 * beside the replies — and lengthened the lag's tail (p99 0.2–0.5 → 0.4–1.8 ms).
 */
const MIN_THREAD_WAIT_MS = 1;
/**
 * The helper starts at the 100th wait it would have served (each turns the loop for up to a
 * millisecond and a half without it). Starting it costs ~100 ms of CPU (in the bundle; ~450 ms from
 * source under tsx), which such waits repay after ~150 more.
 */
const START_AFTER_WAKES = 100;
/** Asks for instants closer than this are one wait asked again (a turn of the loop that ends it). */
const DEMAND_SAME_INSTANT_MS = 0.01;

const FALLBACK_LATE_MS = 2;

type State = 'idle' | 'starting' | 'ready' | 'failed';

class WakeThread {
  private state: State = 'idle';
  private demand = 0;
  private lastDemandMs = Number.NaN;
  private control: Int32Array | null = null;
  private target: Float64Array | null = null;
  /** The instant last given to the helper (hrtime ms), NaN once it has answered it or when none. */
  private postedMs = Number.NaN;
  private leadMs = MAX_LEAD_MS / 4;
  private fallback: NodeJS.Timeout | undefined;
  private readonly heap: ThreadWake[] = [];
  /** performance.now() is process.hrtime minus a fixed origin; the helper reads process.hrtime. */
  private readonly hrOffsetMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  private readonly onFallback = (): void => {
    this.fallback = undefined;
    this.fireDue();
  };

  private now(): number {
    return performance.now() + this.hrOffsetMs;
  }

  /** Call `callback` a lead before `waitMs` from now; null when the caller should wait its own way. */
  wake(waitMs: number, callback: () => void): ThreadWake | null {
    if (this.state !== 'ready') {
      if (this.state === 'idle' && waitMs >= MIN_THREAD_WAIT_MS) this.noteDemand(this.now() + waitMs);
      return null;
    }
    if (waitMs < Math.max(MIN_THREAD_WAIT_MS, this.leadMs + LEAD_MARGIN_MS)) return null;
    const wake = new ThreadWake(this.now() + waitMs, callback);
    this.push(wake);
    if (wake.index === 0) this.postEarliest();
    return wake;
  }

  cancel(wake: ThreadWake): void {
    clearTimeout(wake.timer);
    if (wake.index < 0) return;
    const wasFirst = wake.index === 0;
    this.remove(wake.index);
    if (wasFirst) this.postEarliest();
  }

  /**
   * Count a wait the helper would serve: once per instant, not per turn of the loop that ends it
   * (each asks again).
   */
  private noteDemand(atMs: number): void {
    if (Math.abs(atMs - this.lastDemandMs) < DEMAND_SAME_INSTANT_MS) return;
    this.lastDemandMs = atMs;
    if (++this.demand >= START_AFTER_WAKES) this.start();
  }

  private start(): void {
    this.state = 'starting';
    try {
      const shared = new SharedArrayBuffer(WAKE_LAYOUT.bytes);
      this.control = new Int32Array(shared, 0, WAKE_LAYOUT.controlSlots);
      this.target = new Float64Array(shared, WAKE_LAYOUT.targetByteOffset, 1);
      this.target[0] = Number.NaN;
      const data: WakeThreadData = { shared };
      const worker = startModuleWorker(import.meta.url, 'wake-thread-entry', data);
      worker.on('message', (message: number) => this.onMessage(message));
      worker.on('error', () => this.fail());
      worker.on('exit', () => this.fail());
      // Never what keeps the process alive (after the listeners, which would ref it again): a
      // pending wake's fallback timer does that.
      worker.unref();
    } catch {
      this.fail();
    }
  }

  private onMessage(message: number): void {
    if (message === WAKE_LAYOUT.readyMessage) {
      if (this.state === 'starting') this.state = 'ready';
      return;
    }
    const nowMs = this.now();
    if (nowMs >= this.postedMs) {
      const decayed = Math.max(MIN_LEAD_MS, this.leadMs * LEAD_DECAY);
      this.leadMs = Math.min(MAX_LEAD_MS, Math.max(decayed, nowMs - this.postedMs + LEAD_MARGIN_MS));
    }
    this.fireDue();
  }

  /** Fire every wake within a lead of now, then give the helper the next instant. */
  private fireDue(): void {
    const horizonMs = this.now() + this.leadMs;
    const due: ThreadWake[] = [];
    while (this.heap.length > 0 && this.heap[0]!.atMs <= horizonMs) {
      due.push(this.heap[0]!);
      this.remove(0);
    }
    this.postedMs = Number.NaN;
    this.postEarliest();
    for (const wake of due) wake.callback();
  }

  private postEarliest(): void {
    clearTimeout(this.fallback);
    this.fallback = undefined;
    const first = this.heap[0];
    if (first === undefined || this.control === null || this.target === null) return;
    const nowMs = this.now();
    this.fallback = setTimeout(this.onFallback, Math.max(0, first.atMs - nowMs + FALLBACK_LATE_MS));
    const atMs = first.atMs - this.leadMs;
    if (atMs === this.postedMs) return;
    this.postedMs = atMs;
    this.target[0] = atMs;
    Atomics.add(this.control, WAKE_LAYOUT.seq, 1);
    Atomics.notify(this.control, WAKE_LAYOUT.seq);
  }

  /** The helper is gone or never came: pending wakes fire on timers, new ones wait the caller's way. */
  private fail(): void {
    if (this.state === 'failed') return;
    this.state = 'failed';
    clearTimeout(this.fallback);
    this.fallback = undefined;
    const nowMs = this.now();
    for (const wake of this.heap.splice(0)) {
      wake.index = -1;
      wake.timer = setTimeout(wake.callback, Math.max(0, wake.atMs - nowMs));
    }
  }

  // A binary min-heap on atMs; each wake knows its index, so a cancel is O(log n).
  private push(wake: ThreadWake): void {
    wake.index = this.heap.length;
    this.heap.push(wake);
    this.siftUp(wake.index);
  }

  private remove(index: number): void {
    const heap = this.heap;
    const removed = heap[index]!;
    removed.index = -1;
    const last = heap.pop()!;
    if (index === heap.length) return;
    heap[index] = last;
    last.index = index;
    this.siftUp(index);
    this.siftDown(last.index);
  }

  private siftUp(index: number): void {
    const heap = this.heap;
    const wake = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (parent.atMs <= wake.atMs) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = wake;
    wake.index = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const wake = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.atMs < heap[left]!.atMs ? right : left;
      if (heap[child]!.atMs >= wake.atMs) break;
      heap[index] = heap[child]!;
      heap[index]!.index = index;
      index = child;
    }
    heap[index] = wake;
    wake.index = index;
  }
}

/**
 * This thread's helper (each worker thread that runs a load has its own), made at its first use:
 * the helper's own bundle, which imports the layout above, then holds no instance.
 */
let wakeThread: WakeThread | null = null;

/** See WakeThread.wake. */
export function threadWake(waitMs: number, callback: () => void): ThreadWake | null {
  return (wakeThread ??= new WakeThread()).wake(waitMs, callback);
}

export function cancelThreadWake(wake: ThreadWake): void {
  wakeThread?.cancel(wake);
}
