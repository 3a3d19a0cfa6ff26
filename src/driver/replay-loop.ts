/**
 * Replay: the open model's arrivals are a recording's calls, each due at its recorded offset ÷ the
 * speed (from the window's start, plus one pass per loop), sent by the client ID its caller maps
 * to with its recorded args (engine.startCall). A feed reads the recording ahead of the clock into
 * a bounded queue (a few seconds of calls at any rate: the memory of a 5 GB recording is the
 * memory of its next few thousand calls); one timer loop releases what is due, like the open loop
 * (open-loop.ts), and what it releases late shows as schedule lag, never hidden. A call whose
 * caller maps to a client of another worker or shard is that part's: each part reads the whole
 * recording and sends its own callers' calls, so a caller's calls stay on one client, in order.
 */
import type { ClientPlan } from '../profile/plan.ts';
import type { ReplayPlan } from '../profile/replay-settings.ts';
import { RecordingReader } from '../profile/replay-recording.ts';
import { describeError } from '../errors.ts';
import { safeTimeout } from '../util/timers.ts';
import type { LoadEngine } from './engine.ts';
import type { PhaseRun } from './open-loop.ts';

/** One call queued to be sent. */
interface QueuedCall {
  /** Due time, ms from the phase's start. */
  readonly dueOffsetMs: number;
  readonly clientIndex: number;
  readonly scenarioIndex: number;
  readonly body: Buffer;
}

export interface ReplayPhaseOptions {
  readonly replay: ReplayPlan;
  /** This part's clients (the whole run's, or a worker's or shard's share). */
  readonly clients: readonly ClientPlan[];
  readonly tokenMethod: string;
  readonly phaseIndex: number;
  readonly phaseStartMs: number;
  readonly durationMs: number;
  readonly now: () => number;
  /** Told once when the recording cannot be read on (changed since the scan). */
  readonly notice: (text: string) => void;
}

/** The feed pauses reading with this many calls queued, and reads on below half of it. */
const QUEUE_HIGH = 8192;
/** Yield to I/O after this many calls in one tick, so responses keep being read. */
const MAX_CALLS_PER_TICK = 512;
/** After the phase's end, how long a reader still behind may take to hand over the calls due before it. */
const END_GRACE_MS = 2000;
/** Below this wait a timer is too coarse (≥ 1 ms granularity): spin on setImmediate instead. */
const SPIN_BELOW_MS = 1.5;

export function runReplayPhase(engine: LoadEngine, o: ReplayPhaseOptions): PhaseRun {
  const { replay, phaseStartMs, now } = o;
  const phaseEndMs = phaseStartMs + o.durationMs;
  const localIndex = new Map(o.clients.map((client, index) => [client.id, index]));
  const callerIndex = new Map<string, number>();
  for (const [caller, clientId] of replay.callerClients) {
    const index = localIndex.get(clientId);
    if (index !== undefined) callerIndex.set(caller, index);
  }
  const scenarioOf = new Map(replay.methods.map((method, index) => [method, index]));
  let queue: (QueuedCall | undefined)[] = [];
  let head = 0;
  let readerDone = false;
  let starved = false;
  let resumeReader: (() => void) | null = null;
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let stopped = false;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const stop = (): void => {
    stopped = true;
    clearTimeout(endTimer);
    clearTimeout(graceTimer);
    if (timer !== null) {
      clearTimeout(timer as NodeJS.Timeout);
      clearImmediate(timer as NodeJS.Immediate);
    }
    resumeReader?.();
    finish();
  };
  // At the phase's end, calls due before it that a late loop has not released yet go out now
  // (late, their lag recorded) rather than being lost; a reader that never catches up is given
  // END_GRACE_MS more.
  let ending = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const endTimer = safeTimeout(() => {
    ending = true;
    graceTimer = safeTimeout(stop, END_GRACE_MS);
    if (timer === null) tick();
  }, phaseEndMs - now());

  const wake = (atMs: number): void => {
    const waitMs = atMs - now();
    timer = waitMs >= SPIN_BELOW_MS ? safeTimeout(tick, waitMs - 1) : setImmediate(tick);
  };

  function tick(): void {
    timer = null;
    if (stopped) return;
    const nowMs = now();
    for (let released = 0; ; released++) {
      if (head === queue.length) {
        if (readerDone) return stop();
        starved = true; // the feed wakes the loop when it has read more
        return;
      }
      const call = queue[head]!;
      const dueMs = phaseStartMs + call.dueOffsetMs;
      if (!(dueMs < phaseEndMs)) return stop();
      if (dueMs > nowMs) return wake(dueMs);
      if (released === MAX_CALLS_PER_TICK && !ending) return wake(nowMs);
      queue[head++] = undefined;
      engine.startCall(o.phaseIndex, dueMs, call.clientIndex, call.scenarioIndex, call.body);
      if (resumeReader !== null && queue.length - head < QUEUE_HIGH / 2) {
        const resume = resumeReader;
        resumeReader = null;
        resume();
      }
    }
  }

  /** Read the recording pass after pass into the queue, pausing while it is full. */
  async function feed(): Promise<void> {
    let windowIndex = 0;
    for (let pass = 0; !stopped; pass++) {
      const passStartMs = pass * replay.passMs;
      if (passStartMs / replay.speed >= o.durationMs) break;
      const reader = new RecordingReader(replay.file, { format: replay.format, tokenMethod: o.tokenMethod, startByte: replay.startByte });
      let inWindow = 0;
      for await (const batch of reader.batches()) {
        for (const call of batch) {
          if (call.offsetMs < replay.fromMs) continue;
          if (replay.toMs !== null && call.offsetMs >= replay.toMs) continue;
          inWindow++;
          if (replay.maxCalls !== null && ++windowIndex > replay.maxCalls) return;
          const clientIndex = callerIndex.get(call.caller);
          if (clientIndex === undefined) continue; // another part's caller
          const dueOffsetMs = (passStartMs + call.offsetMs - replay.fromMs) / replay.speed;
          queue.push({ dueOffsetMs, clientIndex, scenarioIndex: scenarioOf.get(call.method)!, body: Buffer.from(call.bodyText) });
        }
        if (head > QUEUE_HIGH) {
          queue = queue.slice(head);
          head = 0;
        }
        if (starved) {
          starved = false;
          wake(now());
        }
        if (queue.length - head >= QUEUE_HIGH) await new Promise<void>((resolve) => (resumeReader = resolve));
        if (stopped) return;
      }
      if (!replay.loop || inWindow === 0) break;
    }
  }

  feed()
    .catch((err: unknown) => o.notice(`the replay stopped reading ${replay.facts.fileName}: ${describeError(err)}`))
    .finally(() => {
      readerDone = true;
      if (starved && !stopped) {
        starved = false;
        wake(now());
      }
    });
  wake(phaseStartMs);
  return { done, stop };
}
