/**
 * `rpcload run --out-samples FILE`: one JSON line per second of the run, written as each second
 * completes, so a run can be tailed (`tail -f`) and plotted by any tool that reads JSON lines.
 * Each line is that second's aggregate — requests, outcomes by class, p50 and p99 — never one
 * line per request, so the file stays small however high the rate. The live snapshot's timeline
 * feeds it while the run goes; the result's own timeline completes it at the end.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { LiveSnapshot } from '../contract/live-snapshot.ts';
import type { TimelineRow } from '../contract/result-schema.ts';
import { RpcloadError } from '../errors.ts';

/** One line of the samples file. */
export interface SampleLine {
  /** Whole seconds since the run's start. */
  readonly t: number;
  /** Wall-clock start of that second (ISO 8601). */
  readonly time: string;
  readonly requests: number;
  readonly success: number;
  readonly rateLimited: number;
  readonly errors: number;
  /** Latency (from the intended start) of the requests that completed in that second, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface SamplesWriter {
  /** Write the seconds the final timeline has that were not written yet (the last, partial one included), then close. */
  finish(timeline: readonly TimelineRow[]): void;
  /** Why the file stopped being written (a full disk); null while it is written. */
  problem(): string | null;
}

/** How often the live snapshot is read for completed seconds. */
const POLL_MS = 250;

/**
 * Open `path` now (an unwritable path is a one-line error before any load, exit 2) and write each
 * completed second as the run goes. `originEpochMs` is read when needed: the clock starts after
 * the tokens are in. A write that fails later (the disk filled up) never stops the run: the file
 * is closed where it got to and `problem()` says why, once.
 */
export function startSamplesWriter(
  path: string,
  source: {
    readonly snapshot: () => LiveSnapshot;
    readonly originEpochMs: () => number;
    readonly started: () => boolean;
  },
): SamplesWriter {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (err) {
    throw new RpcloadError(
      'bad_flag',
      `--out-samples: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? 'unwritable'})`,
    );
  }
  let nextT = 0;
  let closed = false;
  let problem: string | null = null;
  const close = (): void => {
    clearInterval(timer);
    if (closed) return;
    closed = true;
    try {
      closeSync(fd);
    } catch {
      // Closing after a failed write may fail the same way; the descriptor is released either way.
    }
  };
  const write = (rows: readonly TimelineRow[], upToT: number): void => {
    if (closed) return;
    const lines = rows
      .filter((row) => row.t >= nextT && row.t < upToT)
      .map((row) => JSON.stringify(lineOf(row, source.originEpochMs())))
      .join('\n');
    if (lines === '') return;
    try {
      writeSync(fd, `${lines}\n`);
    } catch (err) {
      problem = `--out-samples ${path}: stopped writing samples at second ${nextT} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the result file has every second`;
      close();
      return;
    }
    nextT = Math.max(nextT, ...rows.filter((row) => row.t < upToT).map((row) => row.t + 1));
  };
  const timer = setInterval(() => {
    if (!source.started()) return;
    const snapshot = source.snapshot();
    write(snapshot.timeline, Math.floor(snapshot.elapsedMs / 1000)); // whole seconds only
  }, POLL_MS).unref();
  return {
    finish: (timeline) => {
      write(timeline, Number.POSITIVE_INFINITY);
      close();
    },
    problem: () => problem,
  };
}

function lineOf(row: TimelineRow, originEpochMs: number): SampleLine {
  return {
    t: row.t,
    time: new Date((Number.isNaN(originEpochMs) ? Date.now() : originEpochMs) + row.t * 1000).toISOString(),
    requests: row.requests,
    success: row.success,
    rateLimited: row.rateLimited,
    errors: row.errors,
    p50Ms: row.p50,
    p99Ms: row.p99,
  };
}
