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
}

/** How often the live snapshot is read for completed seconds. */
const POLL_MS = 250;

/**
 * Open `path` now (an unwritable path is a one-line error before any load, exit 2) and write each
 * completed second as the run goes. `originEpochMs` is read when needed: the clock starts after
 * the tokens are in.
 */
export function startSamplesWriter(
  path: string,
  source: { readonly snapshot: () => LiveSnapshot; readonly originEpochMs: () => number; readonly started: () => boolean },
): SamplesWriter {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (err) {
    throw new RpcloadError('bad_flag', `--out-samples: cannot write ${path} (${(err as NodeJS.ErrnoException).code ?? 'unwritable'})`);
  }
  let nextT = 0;
  let closed = false;
  const write = (rows: readonly TimelineRow[], upToT: number): void => {
    const lines = rows
      .filter((row) => row.t >= nextT && row.t < upToT)
      .map((row) => JSON.stringify(lineOf(row, source.originEpochMs())))
      .join('\n');
    if (lines === '') return;
    writeSync(fd, `${lines}\n`);
    nextT = Math.max(nextT, ...rows.filter((row) => row.t < upToT).map((row) => row.t + 1));
  };
  const timer = setInterval(() => {
    if (!source.started()) return;
    const snapshot = source.snapshot();
    write(snapshot.timeline, Math.floor(snapshot.elapsedMs / 1000)); // whole seconds only
  }, POLL_MS).unref();
  return {
    finish: (timeline) => {
      clearInterval(timer);
      if (closed) return;
      closed = true;
      try {
        write(timeline, Number.POSITIVE_INFINITY);
      } finally {
        closeSync(fd);
      }
    },
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
