/**
 * The read-ahead of a replay phase: reads the recording pass after pass (a loop plays its window
 * again) into a bounded queue of calls ready to send (a ReadAhead, read-ahead.ts), each with its
 * due time, its client and its body. It starts reading when made, and the run makes it before its
 * clock starts and waits for `ready` (the queue full, or the whole window read when it is
 * smaller), as it waits for tokens and connections: the first calls are due at once, and a reader
 * that only began at the clock's start would send them late. The queue is bounded in calls
 * (QUEUE_HIGH), never the file's size; a window that fits in it is kept after its first pass, so a
 * loop's next pass reads nothing and its wrap cannot stall the clock. A call whose caller maps to a
 * client of another worker or shard is skipped here: each part reads the whole recording and sends
 * its own callers' calls.
 *
 * A call recorded earlier than a call before it is due with that call (the queue leaves in file
 * order). The feed reads the bytes the scan read and no more; a file cut or rewritten since is
 * told as a notice, and the window's calls it could not read are counted as skipped.
 */
import type { ClientPlan } from '../profile/plan.ts';
import type { RecordedCall } from '../profile/replay-record.ts';
import { RecordingReader } from '../profile/replay-recording.ts';
import type { ReplayPlan } from '../profile/replay-settings.ts';
import { describeError } from '../errors.ts';
import { ReadAhead } from './read-ahead.ts';

/** One call queued to be sent. */
export interface QueuedCall {
  /** Due time, ms from the phase's start. */
  readonly dueOffsetMs: number;
  readonly clientIndex: number;
  readonly scenarioIndex: number;
  readonly body: Buffer;
}

export interface ReplayFeedOptions {
  readonly replay: ReplayPlan;
  /** This part's clients (the whole run's, or a worker's or shard's share). */
  readonly clients: readonly ClientPlan[];
  readonly tokenMethod: string;
  /** The phase's length (ms): passes of a loop that start after it are not read. */
  readonly durationMs: number;
  /** Told once when the recording changed since the scan (cut, grown, rewritten). */
  readonly notice: (text: string) => void;
  /**
   * Told of calls of the window not sent because the recording could not be read on as scanned.
   * Given to one part of a run only: every part reads the whole recording and would count them.
   */
  readonly skip?: (reason: string, count: number) => void;
}

/** The skip reason of calls lost to a recording that changed during the run. */
export const RECORDING_CHANGED = 'recording changed';

/** The feed pauses reading with this many calls queued. */
export const QUEUE_HIGH = 8192;
/**
 * It reads on once this many have been taken: a few chunks at a time, spread over the run, rather
 * than half the queue's worth back to back (which held the sending loop up for milliseconds).
 */
const REFILL_CALLS = 1024;

export class ReplayFeed {
  /** The calls read ahead: the reader pauses with QUEUE_HIGH queued and reads on REFILL_CALLS below. */
  private readonly calls = new ReadAhead<QueuedCall>({ high: QUEUE_HIGH, low: QUEUE_HIGH - REFILL_CALLS });
  /** Resolves once the queue is full, the window is read whole, or the feed is closed: the clock may start. */
  readonly ready = this.calls.ready;
  private readonly callerIndex = new Map<string, number>();
  private readonly scenarioOf: Map<string, number>;
  private changeTold = false;

  constructor(private readonly o: ReplayFeedOptions) {
    const localIndex = new Map(o.clients.map((client, index) => [client.id, index]));
    for (const [caller, clientId] of o.replay.callerClients) {
      const index = localIndex.get(clientId);
      if (index !== undefined) this.callerIndex.set(caller, index);
    }
    this.scenarioOf = new Map(o.replay.methods.map((method, index) => [method, index]));
    this.read()
      .catch((err: unknown) => o.notice(`the replay stopped reading ${o.replay.facts.fileName}: ${describeError(err)}`))
      .finally(() => this.calls.end());
  }

  /** Calls read and not yet taken. */
  get buffered(): number {
    return this.calls.buffered;
  }

  /** No call is queued and none will come. */
  get exhausted(): boolean {
    return this.calls.exhausted;
  }

  /** The next call, left queued; undefined when none is queued now. */
  peek(): QueuedCall | undefined {
    return this.calls.peek();
  }

  /** Take the next call (after `peek` said there is one). */
  take(): QueuedCall {
    return this.calls.take()!;
  }

  /** Call `listener` once, when more calls are queued or the reader has ended (a loop found the queue empty). */
  whenMore(listener: () => void): void {
    this.calls.whenMore(listener);
  }

  /** Stop reading (the phase ended or the run stopped). */
  close(): void {
    this.calls.close();
  }

  /** Read the recording pass after pass into the queue, pausing while it is full. */
  private async read(): Promise<void> {
    const { replay } = this.o;
    let windowIndex = 0;
    // The window's calls when they fit in the queue: later passes take them from here, not from the file.
    let kept: RecordedCall[] | null = null;
    // A call recorded earlier than one before it is due with that one: the queue is sent in file
    // order, so it cannot leave sooner, and its wait is the recording's disorder, not schedule lag.
    let lastDueOffsetMs = Number.NEGATIVE_INFINITY;
    for (let pass = 0; !this.calls.closed; pass++) {
      const passStartMs = pass * replay.passMs;
      if (passStartMs / replay.speed >= this.o.durationMs) break;
      let reading: RecordedCall[] | null = kept === null && replay.loop ? [] : null;
      let queued = 0;
      let inPass = 0;
      const reader = kept === null ? this.fileReader() : null;
      try {
        for await (const batch of reader?.batches() ?? keptBatches(kept!)) {
          for (const call of batch) {
            if (call.offsetMs < replay.fromMs) continue;
            if (replay.toMs !== null && call.offsetMs >= replay.toMs) continue;
            if (reading?.length === QUEUE_HIGH) reading = null; // longer than the queue: read from the file every pass
            reading?.push(call);
            if (replay.maxCalls !== null && ++windowIndex > replay.maxCalls) return;
            inPass++;
            const dueOffsetMs = Math.max(lastDueOffsetMs, (passStartMs + call.offsetMs - replay.fromMs) / replay.speed);
            lastDueOffsetMs = dueOffsetMs;
            const clientIndex = this.callerIndex.get(call.caller);
            if (clientIndex === undefined) continue; // another part's caller
            queued++;
            this.calls.push({
              dueOffsetMs,
              clientIndex,
              scenarioIndex: this.scenarioOf.get(call.method)!,
              body: Buffer.from(call.bodyText),
            });
          }
          this.calls.announce();
          if (this.calls.full) await this.calls.room();
          else {
            // One batch per turn of the event loop: a stream with its next chunk already buffered
            // would otherwise hand over batch after batch in one run of microtasks, and no call
            // due meanwhile could be sent.
            await yieldToEventLoop();
          }
          if (this.calls.closed) return;
        }
      } catch (err) {
        // The scan read the whole file: what fails now is a file that changed (cut, rewritten, removed).
        return this.stoppedReading(err, inPass, windowIndex);
      }
      if (reader?.changed != null) this.tellChanged(reader.changed);
      // A pass with no call of this part's callers: every later pass has none either.
      if (!replay.loop || queued === 0) break;
      kept ??= reading;
    }
  }

  /**
   * The file could not be read on as scanned: the window's calls of this pass not read are counted
   * (by one part of the run: every part reads the whole recording), and the run says so.
   */
  private stoppedReading(err: unknown, readInPass: number, windowIndex: number): void {
    const { replay } = this.o;
    const budget = replay.maxCalls === null ? Number.POSITIVE_INFINITY : replay.maxCalls - windowIndex;
    const unread = Math.max(0, Math.min(replay.facts.callsInWindow - readInPass, budget));
    if (unread > 0) this.o.skip?.(RECORDING_CHANGED, unread);
    const lost = unread > 0 ? `: ${unread} calls of the window not sent (skipped: ${RECORDING_CHANGED})` : '';
    const stopped = `the replay stopped reading it (${describeError(err)})`;
    this.o.notice(`${replay.facts.fileName} changed during the run and ${stopped}${lost}`);
  }

  private tellChanged(how: string): void {
    if (this.changeTold) return;
    this.changeTold = true;
    this.o.notice(`${this.o.replay.facts.fileName} changed during the run: ${how}`);
  }

  private fileReader(): RecordingReader {
    const { replay, tokenMethod } = this.o;
    const options = {
      format: replay.format,
      tokenMethod,
      startByte: replay.startByte,
      startLine: replay.startLine,
      stamp: { bytes: replay.facts.bytes, mtimeMs: replay.mtimeMs },
      host: replay.host,
    };
    return new RecordingReader(replay.file, options, replay.originEpochMs);
  }
}

/**
 * A kept window as batches of at most QUEUE_HIGH / 16 calls, so a pass of it pauses at the queue's
 * bound like a file's, each after a turn of the event loop (read() yields after every batch):
 * refilling the queue from memory never holds up the sending loop for long.
 */
function* keptBatches(calls: readonly RecordedCall[]): Generator<RecordedCall[]> {
  const size = QUEUE_HIGH / 16;
  for (let start = 0; start < calls.length; start += size) yield calls.slice(start, start + size);
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
