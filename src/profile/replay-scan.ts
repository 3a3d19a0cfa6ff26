/**
 * The scan of a replay's recording before the run: the whole file read once (only the bytes its
 * size said when the scan began), every record checked (a bad one is one line naming file, line
 * and field), the file hashed (SHA-256), and what the window holds learnt — its calls, callers,
 * methods, span, disorder, and where in the file it starts.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { RpcloadError } from '../errors.ts';
import { parseDurationMs } from '../util/duration.ts';
import { unknownCallersText } from './replay-har.ts';
import type { SkipReason } from './replay-record.ts';
import { formatOfFile, RecordingReader } from './replay-recording.ts';
import type { RecordingFacts, ReplaySettings } from './replay-settings.ts';

/** A window bound in ms since the first call: a duration into the recording, or an instant of one whose `t` are instants. */
function boundMs(text: string | null, flag: string, originEpochMs: number | null): number | null {
  if (text === null) return null;
  const durationMs = parseDurationMs(text);
  if (durationMs !== undefined) return durationMs;
  const epochMs = /^\d{4}-\d\d-\d\dT/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(epochMs))
    throw new RpcloadError(
      'bad_flag',
      `${flag}: expected a duration into the recording (e.g. 90s) or an ISO 8601 instant, found "${text}"`,
    );
  if (originEpochMs === null)
    throw new RpcloadError(
      'bad_flag',
      `${flag}: an instant needs a recording whose "t" are instants; this one counts ms, use a duration (e.g. 90s)`,
    );
  return epochMs - originEpochMs;
}

export interface Scan {
  facts: Omit<RecordingFacts, 'mappedCallers'>;
  fromMs: number;
  toMs: number | null;
  /** Offset of the window's first and last call, and of the last call sent without a loop (the maxCalls-th). */
  firstInWindowMs: number;
  lastInWindowMs: number;
  lastSentMs: number;
  /** Where the window's first call's line starts, and its number: reading from there repeats and skips nothing. */
  startByte: number;
  startLine: number;
  originEpochMs: number | null;
  mtimeMs: number;
  host: string | null;
  notes: string[];
  /** Why calls have no known caller, in words (a HAR's), for the refusal naming them. */
  unknownCallers: string;
  callers: Set<string>;
  methodCounts: Map<string, number>;
}

/** What a path that is not a regular file is, for the one line that refuses it. */
function notARecording(file: string, stats: Stats | null): RpcloadError {
  const what =
    stats === null
      ? 'no such file'
      : stats.isDirectory()
        ? 'a directory, not a recording file'
        : stats.isFIFO()
          ? 'a FIFO (named pipe), not a regular file: a recording is read twice, scanned before the run and then played'
          : stats.isCharacterDevice() || stats.isBlockDevice()
            ? 'a device, not a recording file'
            : stats.isSocket()
              ? 'a socket, not a recording file'
              : 'not a regular file';
  return new RpcloadError('bad_replay', `--replay: ${file}: ${what}`);
}

/** Read the whole recording once: check every record, hash it, and learn what the window holds. */
export async function scanRecording(settings: ReplaySettings, tokenMethod: string): Promise<Scan> {
  const { file } = settings;
  // stat, not open: opening a FIFO would wait for a writer.
  const size = await stat(file).catch(() => null);
  if (size === null || !size.isFile()) throw notARecording(file, size);
  const format = formatOfFile(file);
  const hash = createHash('sha256');
  const skipped: Record<string, number> = {};
  const reader = new RecordingReader(file, {
    format,
    tokenMethod,
    stamp: { bytes: size.size, mtimeMs: size.mtimeMs },
    trackLineStarts: true,
    host: settings.host,
    onBytes: (chunk) => hash.update(chunk),
    onSkip: (reason: SkipReason) => (skipped[reason] = (skipped[reason] ?? 0) + 1),
  });
  const callers = new Set<string>();
  const methodCounts = new Map<string, number>();
  let calls = 0;
  let inWindow = 0;
  const outOfOrder = { calls: 0, maxMs: 0 };
  let fromMs = 0;
  let toMs: number | null = null;
  let first = Number.NaN;
  let last = Number.NaN;
  let lastSent = Number.NaN;
  let startByte = 0;
  let startLine = 1;
  for await (const batch of reader.batches()) {
    for (let i = 0; i < batch.length; i++) {
      const call = batch[i]!;
      if (calls === 0) {
        // Bounds may be instants: known once the first call has set the recording's origin.
        fromMs = boundMs(settings.from, '--from', reader.originEpochMs) ?? 0;
        toMs = boundMs(settings.to, '--to', reader.originEpochMs);
        if (toMs !== null && toMs <= fromMs)
          throw new RpcloadError('bad_flag', `--to: expected a point after --from, found ${settings.to}`);
      }
      calls++;
      if (call.offsetMs < fromMs || (toMs !== null && call.offsetMs >= toMs)) continue;
      inWindow++;
      if (inWindow === 1) {
        first = call.offsetMs;
        startByte = reader.batchStarts[i] ?? 0;
        startLine = reader.batchLines[i] ?? 1;
      }
      // Out of order: earlier than a call before it in the window, which it cannot pass (sent in file order).
      if (call.offsetMs < last) {
        outOfOrder.calls++;
        outOfOrder.maxMs = Math.max(outOfOrder.maxMs, last - call.offsetMs);
      }
      last = Math.max(Number.isNaN(last) ? call.offsetMs : last, call.offsetMs);
      if (settings.maxCalls === null || inWindow <= settings.maxCalls)
        lastSent = Math.max(Number.isNaN(lastSent) ? call.offsetMs : lastSent, call.offsetMs);
      callers.add(call.caller);
      methodCounts.set(call.method, (methodCounts.get(call.method) ?? 0) + 1);
    }
  }
  const fileName = basename(file);
  const notes =
    reader.otherHosts.size === 0
      ? []
      : [
          `${fileName}: API calls to other hosts than ${reader.apiHost} were skipped: ` +
            `${[...reader.otherHosts].map(([host, n]) => `${host} (${n})`).join(', ')}; --replay-host chooses the API's host`,
        ];
  const facts = {
    fileName,
    format,
    bytes: size.size,
    sha256: hash.digest('hex'),
    calls,
    callsInWindow: inWindow,
    skipped,
    callers: callers.size,
    outOfOrder: { calls: outOfOrder.calls, maxMs: round3(outOfOrder.maxMs) },
  };
  return {
    facts,
    fromMs,
    toMs,
    firstInWindowMs: first,
    lastInWindowMs: last,
    lastSentMs: lastSent,
    startByte,
    startLine,
    originEpochMs: reader.originEpochMs,
    mtimeMs: size.mtimeMs,
    host: reader.apiHost,
    notes,
    unknownCallers: unknownCallersText(reader.unknownCallers, skipped['malformed client assertion'] ?? 0),
    callers,
    methodCounts,
  };
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}
