/**
 * Writes the result file's checkpoints from a worker thread. The driver's thread only serializes
 * the recorder (its histograms live there); building the result, turning it into JSON and writing
 * it — about half of a checkpoint's cost, tens of milliseconds with hundreds of clients — happen
 * off the event loop that schedules requests, so a checkpoint is not paid for in schedule lag.
 */
import { describeError } from '../../errors.ts';
import type { BuildResultInput } from './build-result.ts';
import { startModuleWorker } from '../../util/module-worker.ts';

export interface CheckpointWriter {
  /** Build the result from `input` and write it atomically to `path`. */
  write(path: string, input: BuildResultInput): Promise<void>;
  close(): Promise<void>;
}

/** A checkpoint request and its answer (null error = written). */
export interface CheckpointMessage {
  readonly id: number;
  readonly path: string;
  readonly input: BuildResultInput;
}
export interface CheckpointReply {
  readonly id: number;
  readonly error: string | null;
}

export function startCheckpointWriter(): CheckpointWriter {
  const worker = startModuleWorker(import.meta.url, 'checkpoint-writer-entry', null);
  worker.unref(); // never what keeps a finished run alive
  const pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  const failAll = (err: Error): void => {
    for (const waiter of pending.values()) waiter.reject(err);
    pending.clear();
  };
  worker.on('message', ({ id, error }: CheckpointReply) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (error === null) waiter?.resolve();
    else waiter?.reject(new Error(error));
  });
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the checkpoint writer stopped')));
  let nextId = 0;
  return {
    write: (path, input) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, path, input } satisfies CheckpointMessage);
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}

/** Periodic checkpoints of a run's result file; `stop()` waits for the one being written. */
export interface Checkpoints {
  stop(): Promise<void>;
  /** Why a checkpoint failed (the run goes on; the final file says so); null when none did. */
  problem(): string | null;
}

/**
 * Write the result file every `everyMs` while `due()` says the run is under way, each from a
 * fresh `input()`. A failed checkpoint never stops the run: the first failure is kept for the
 * final file's warnings.
 */
export function startCheckpoints(o: {
  readonly path: string;
  readonly everyMs: number;
  /** How long the session's load is planned to last (0 when unknown). */
  readonly plannedMs: number;
  readonly due: () => boolean;
  readonly input: () => Promise<BuildResultInput>;
  /** Starts the writer (default: its worker thread, startCheckpointWriter). */
  readonly startWriter?: () => CheckpointWriter;
}): Checkpoints {
  const startWriter = o.startWriter ?? startCheckpointWriter;
  let problem: string | null = null;
  const failed = (err: unknown): void =>
    void (problem ??= `a checkpoint of the result file could not be written: ${describeError(err)}`);
  // A load planned to outlast `everyMs` starts the writer's thread now, before its clock starts.
  // Started at the first checkpoint instead, the thread's bootstrap (~0.1 CPU-s) ran beside the
  // load: at 10,000 arrivals/s against a target on the only other core, the measured phase's
  // schedule-lag p99 was 10.2 ms that way and 2.5 ms this way (medians of 4 runs). A shorter load
  // (or one of unknown length) starts it at its first checkpoint, if it has one: most have none,
  // and would pay the bootstrap for nothing.
  let writer: CheckpointWriter | null = null;
  if (o.plannedMs > o.everyMs) {
    try {
      writer = startWriter();
    } catch (err) {
      failed(err); // and tried again at the first checkpoint
    }
  }
  let writing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (!o.due()) return;
    writing = writing.then(async () => (writer ??= startWriter()).write(o.path, await o.input())).catch(failed);
  }, o.everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await writing;
      await writer?.close();
    },
    problem: () => problem,
  };
}
