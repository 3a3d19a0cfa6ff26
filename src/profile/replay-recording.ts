/**
 * Recorded traffic as `rpcload run --replay` reads it: a JSONL file of one call a line
 * (`{"t": …, "client": …, "method": …, "args": {…}}`) or a HAR capture (each `POST …/api/{method}`
 * entry, see replay-har.ts). The same reader serves the scan before the run (validation, callers,
 * SHA-256) and the replay itself, so both see the same calls at the same offsets; the replay reads
 * the bytes the scan read and no others, and says when the file changed since.
 *
 * JSONL is streamed in batches of the lines of one read chunk: memory holds one chunk and its
 * calls, whatever the file's size, and the consumer pulls the next batch only when it wants it
 * (back-pressure through the async iterator). A HAR file is one JSON document, read whole: browser
 * and proxy captures are small; a large recording belongs in JSONL.
 */
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { METHOD_NAME_EXPECTED, isMethodName } from '../api/http-call.ts';
import { RpcloadError } from '../errors.ts';
import { harCalls, type UnknownCallers } from './replay-har.ts';
import { badRecord, isObject, OffsetClock, type RecordedCall, type SkipReason } from './replay-record.ts';

export type RecordingFormat = 'jsonl' | 'har';

/** The file as the scan found it: a replay reads these bytes, and says so when the file is no longer them. */
export interface FileStamp {
  readonly bytes: number;
  readonly mtimeMs: number;
}

export interface RecordingReaderOptions {
  readonly format: RecordingFormat;
  /** The token request method: such calls are skipped (the replay fetches its own tokens). */
  readonly tokenMethod: string;
  /** Told of every raw chunk read (the scan hashes the file with it). */
  readonly onBytes?: (chunk: Buffer) => void;
  /** Told of every record skipped, with why. */
  readonly onSkip?: (reason: SkipReason) => void;
  /**
   * JSONL: start reading at this byte, the start of a line (the scan noted the window's first call's),
   * numbered `startLine`; the offsets of the calls read stay those of the whole file. Default 0, 1.
   */
  readonly startByte?: number;
  readonly startLine?: number;
  /**
   * The file as scanned: only its first `bytes` are read (what was appended since is not), a file
   * that ends before them is an error (RecordingChangedError), and `changed` says how it differs.
   */
  readonly stamp?: FileStamp;
  /** JSONL: note where each call's line starts (`batchStarts`), for the scan to start a replay there. */
  readonly trackLineStarts?: boolean;
  /** HAR: the host whose `POST …/api/{method}` entries are the API's; null = the host most of them go to. */
  readonly host?: string | null;
}

/** The file ended before the bytes the scan read: it was cut (or replaced) since. */
export class RecordingChangedError extends RpcloadError {
  constructor(
    file: string,
    readonly endByte: number,
    stamp: FileStamp,
  ) {
    super(
      'bad_replay',
      `${basename(file)}: ends at byte ${endByte.toLocaleString('en-US')}, ` +
        `before the ${stamp.bytes.toLocaleString('en-US')} bytes scanned`,
    );
  }
}

/** A line longer than this is not a recorded call: reading stops rather than buffering it. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Read chunk size: a batch holds the calls of one chunk (small enough that parsing one barely delays the clock). */
const CHUNK_BYTES = 64 * 1024;
/** The UTF-8 byte order mark some editors write at a text file's start: not part of the first line. */
const BOM = '\uFEFF';

/** The format a file name says: .har is HAR, anything else JSONL. */
export function formatOfFile(path: string): RecordingFormat {
  return path.toLowerCase().endsWith('.har') ? 'har' : 'jsonl';
}

/** Reads a recording's calls, in file order, in batches. */
export class RecordingReader {
  private readonly clock: OffsetClock;
  /** With trackLineStarts: the byte where each call of the last batch starts its line, and the line's number. */
  readonly batchStarts: number[] = [];
  readonly batchLines: number[] = [];
  /** With a stamp, once read: how the file differs from it (grown, rewritten), in words; null when it does not. */
  changed: string | null = null;
  /** HAR: the API's host (the one asked for, or the one most API calls go to). */
  apiHost: string | null = null;
  /** HAR: API calls (`POST …/api/{method}`) to other hosts, by host: skipped. */
  otherHosts: ReadonlyMap<string, number> = new Map();
  /** HAR: why calls have no known caller. */
  unknownCallers: UnknownCallers = { noBearer: 0, unissued: 0, anonymousTokenRequests: 0, tokenlessReplies: 0 };

  constructor(
    private readonly file: string,
    private readonly options: RecordingReaderOptions,
    /** The first call's instant (epoch ms) when `t` are instants, if known (a read from the window's start). */
    originEpochMs: number | null = null,
  ) {
    this.clock = new OffsetClock(file, originEpochMs);
  }

  /** The first call's instant (epoch ms) once read, when the recording writes instants. */
  get originEpochMs(): number | null {
    return this.clock.origin;
  }

  /** The calls, a batch at a time. A bad record throws an RpcloadError naming file, line and field. */
  batches(): AsyncGenerator<RecordedCall[]> {
    return this.options.format === 'har' ? this.harBatches() : this.jsonlBatches();
  }

  private async *jsonlBatches(): AsyncGenerator<RecordedCall[]> {
    const { startByte = 0, stamp, trackLineStarts = false } = this.options;
    const handle = await open(this.file, 'r');
    // Only the bytes scanned: what was appended since is no part of the recording that was checked and hashed.
    const endByte = stamp?.bytes ?? Number.POSITIVE_INFINITY;
    const stream =
      startByte < endByte
        ? handle.createReadStream({ highWaterMark: CHUNK_BYTES, start: startByte, end: endByte - 1, autoClose: false })
        : null;
    try {
      const decoder = new StringDecoder('utf8');
      let rest = '';
      let line = (this.options.startLine ?? 1) - 1;
      let lineByte = startByte;
      let readTo = startByte;
      for await (const chunk of (stream ?? []) as AsyncIterable<Buffer>) {
        this.options.onBytes?.(chunk);
        let text = decoder.write(chunk);
        if (readTo === 0 && text.startsWith(BOM)) {
          text = text.slice(1);
          lineByte += 3;
        }
        readTo += chunk.length;
        const lines = (rest + text).split('\n');
        rest = lines.pop()!;
        if (rest.length > MAX_LINE_CHARS)
          throw badRecord(this.file, String(line + 1), '', `a line under 16 MB`, `${rest.length} characters`);
        const batch: RecordedCall[] = [];
        this.batchStarts.length = 0;
        this.batchLines.length = 0;
        for (const text of lines) {
          line++;
          const call = this.jsonlCall(text, line);
          if (call !== null) {
            batch.push(call);
            if (trackLineStarts) this.noteLine(lineByte, line);
          }
          if (trackLineStarts) lineByte += Buffer.byteLength(text) + 1;
        }
        if (batch.length > 0) yield batch;
      }
      // A file cut since the scan: its last line may be cut too, so it is not read as a call.
      if (stamp !== undefined && readTo < stamp.bytes) throw new RecordingChangedError(this.file, readTo, stamp);
      const call = this.jsonlCall(rest + decoder.end(), line + 1);
      this.batchStarts.length = 0;
      this.batchLines.length = 0;
      if (call !== null && trackLineStarts) this.noteLine(lineByte, line + 1);
      if (call !== null) yield [call];
      if (stamp !== undefined) this.changed = differenceFrom(stamp, await handle.stat());
    } finally {
      stream?.destroy();
      await handle.close();
    }
  }

  private noteLine(byte: number, line: number): void {
    this.batchStarts.push(byte);
    this.batchLines.push(line);
  }

  private jsonlCall(text: string, line: number): RecordedCall | null {
    if (text.trim() === '') return null;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badRecord(this.file, String(line), '', 'one JSON object per line', text);
    }
    const where = String(line);
    if (!isObject(value))
      throw badRecord(this.file, where, '', 'a JSON object {"t", "client", "method", "args"}', value);
    const offsetMs = this.clock.offsetOf(value.t, where, '/t');
    const { client, method, args } = value;
    if (typeof client !== 'string' || client === '')
      throw badRecord(this.file, where, '/client', "the caller's client ID (a string)", client);
    if (typeof method !== 'string' || !isMethodName(method))
      throw badRecord(this.file, where, '/method', METHOD_NAME_EXPECTED, method);
    if (args !== undefined && !isObject(args)) throw badRecord(this.file, where, '/args', 'a JSON object', args);
    if (method === this.options.tokenMethod) {
      this.options.onSkip?.('token request');
      return null;
    }
    return { offsetMs, caller: client, method, bodyText: JSON.stringify(args ?? {}) };
  }

  /** The capture's bytes (only those scanned, with a stamp). */
  private async harBytes(): Promise<Buffer> {
    const { stamp } = this.options;
    const handle = await open(this.file, 'r');
    try {
      const bytes = await handle.readFile();
      if (stamp === undefined) return bytes;
      if (bytes.length < stamp.bytes) throw new RecordingChangedError(this.file, bytes.length, stamp);
      this.changed = differenceFrom(stamp, await handle.stat());
      return bytes.subarray(0, stamp.bytes);
    } finally {
      await handle.close();
    }
  }

  private async *harBatches(): AsyncGenerator<RecordedCall[]> {
    const bytes = await this.harBytes();
    this.options.onBytes?.(bytes);
    const { tokenMethod, host = null, onSkip } = this.options;
    const har = await harCalls(this.file, bytes.toString('utf8'), { tokenMethod, host, onSkip }, this.clock);
    this.apiHost = har.apiHost;
    this.otherHosts = har.otherHosts;
    this.unknownCallers = har.unknownCallers;
    yield har.calls;
  }
}

/** How the file differs from what the scan saw, in words; null when it does not. */
function differenceFrom(stamp: FileStamp, now: { size: number; mtimeMs: number }): string | null {
  if (now.size === stamp.bytes && now.mtimeMs === stamp.mtimeMs) return null;
  const sizes = `${now.size.toLocaleString('en-US')} bytes, ${stamp.bytes.toLocaleString('en-US')} when scanned`;
  if (now.size > stamp.bytes)
    return `it grew (${sizes}): the replay read only the bytes scanned, which its SHA-256 describes; what was added was not sent`;
  return `it was rewritten (${sizes}): the calls read may differ from those its scan checked and its SHA-256 describes`;
}
