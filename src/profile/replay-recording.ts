/**
 * Recorded traffic as `rpcload run --replay` reads it: a JSONL file of one call a line
 * (`{"t": …, "client": …, "method": …, "args": {…}}`) or a HAR capture (each `POST …/api/{method}`
 * entry). The same reader serves the scan before the run (validation, callers, SHA-256) and the
 * replay itself, so both see the same calls at the same offsets.
 *
 * JSONL is streamed in batches of the lines of one read chunk: memory holds one chunk and its
 * calls, whatever the file's size, and the consumer pulls the next batch only when it wants it
 * (back-pressure through the async iterator). A HAR file is one JSON document, read whole: browser
 * and proxy captures are small; a large recording belongs in JSONL.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { decodeJwt as DecodeJwt } from 'jose';
import { CLIENT_ASSERTION_TYPE } from '../api/client-assertion.ts';
import { isMethodName, METHOD_NAME_EXPECTED } from '../api/http-call.ts';
import { RpcloadError } from '../errors.ts';

export type RecordingFormat = 'jsonl' | 'har';

/** One recorded call. */
export interface RecordedCall {
  /** When it was made: ms since the recording's first call (its origin). */
  readonly offsetMs: number;
  /** Who made it: the recorded client ID (the caller). */
  readonly caller: string;
  readonly method: string;
  /** Its args as the JSON text sent as the request body. */
  readonly bodyText: string;
}

/**
 * Why a record of the file is not replayed: a token request (the replay fetches its own tokens), a
 * HAR's token request whose private_key_jwt client assertion cannot be decoded (so the calls made
 * with its token have no known caller), a HAR's other URLs.
 */
export type SkipReason = 'token request' | 'malformed client assertion' | 'not an API call';

export interface RecordingReaderOptions {
  readonly format: RecordingFormat;
  /** The token request method: such calls are skipped (the replay fetches its own tokens). */
  readonly tokenMethod: string;
  /** Told of every raw chunk read (the scan hashes the file with it). */
  readonly onBytes?: (chunk: Buffer) => void;
  /** Told of every record skipped, with why. */
  readonly onSkip?: (reason: SkipReason) => void;
  /**
   * JSONL: start reading at this byte (a chunk start the scan noted before the window: the line it
   * cuts is dropped, and the offsets of the calls read stay those of the whole file). Default 0.
   */
  readonly startByte?: number;
}

/** A line longer than this is not a recorded call: reading stops rather than buffering it. */
const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Read chunk size: a batch holds the calls of one chunk (small enough that parsing one barely delays the clock). */
const CHUNK_BYTES = 64 * 1024;
/** Caller named for a HAR call whose bearer token no recorded token request issued. */
export const UNKNOWN_CALLER = '(unknown caller)';

/** The format a file name says: .har is HAR, anything else JSONL. */
export function formatOfFile(path: string): RecordingFormat {
  return path.toLowerCase().endsWith('.har') ? 'har' : 'jsonl';
}

/** One bad record: "FILE:LINE: /json/path: expected …, found …" (exit 2). */
function badRecord(file: string, where: string, pointer: string, expectedText: string, found: unknown): RpcloadError {
  const shown = typeof found === 'string' ? JSON.stringify(found.length > 60 ? `${found.slice(0, 60)}…` : found) : JSON.stringify(found);
  return new RpcloadError('bad_replay', `${basename(file)}:${where}: ${pointer}: expected ${expectedText}, found ${shown ?? 'nothing'}`);
}

/**
 * Offsets from each record's `t`: a number is ms since the first call; a string is an ISO 8601
 * instant, made relative to the first call's. One recording uses one form.
 */
class OffsetClock {
  private originEpochMs: number | null = null;
  private form: 'offset' | 'instant' | null = null;

  constructor(private readonly file: string) {}

  offsetOf(t: unknown, where: string, pointer: string): number {
    if (typeof t === 'number' && Number.isFinite(t) && t >= 0 && this.form !== 'instant') {
      this.form = 'offset';
      return t;
    }
    const epochMs = typeof t === 'string' && /^\d{4}-\d\d-\d\dT/.test(t) ? Date.parse(t) : Number.NaN;
    if (!Number.isNaN(epochMs) && this.form !== 'offset') {
      this.form = 'instant';
      this.originEpochMs ??= epochMs;
      return epochMs - this.originEpochMs;
    }
    const wanted =
      this.form === 'instant'
        ? 'an ISO 8601 instant like the first call\'s "t"'
        : this.form === 'offset'
          ? 'ms since the first call (a number ≥ 0) like the first call\'s "t"'
          : 'ms since the first call (a number ≥ 0) or an ISO 8601 instant';
    throw badRecord(this.file, where, pointer, wanted, t);
  }

  /** The first call's instant (epoch ms) when `t` was written as instants; null for offsets. */
  get origin(): number | null {
    return this.originEpochMs;
  }
}

/** Reads a recording's calls, in file order, in batches. */
export class RecordingReader {
  private readonly clock: OffsetClock;

  constructor(
    private readonly file: string,
    private readonly options: RecordingReaderOptions,
  ) {
    this.clock = new OffsetClock(file);
  }

  /** The first call's instant (epoch ms) once read, when the recording writes instants. */
  get originEpochMs(): number | null {
    return this.clock.origin;
  }

  /** The calls, a batch at a time. A bad record throws an RpcloadError naming file, line and field. */
  batches(): AsyncGenerator<RecordedCall[]> {
    return this.options.format === 'har' ? this.harBatches() : this.jsonlBatches();
  }

  /** Byte offset of the chunk read before the current one: reading from there again repeats no call of this one. */
  chunkBeforeByte = 0;

  private async *jsonlBatches(): AsyncGenerator<RecordedCall[]> {
    const startByte = this.options.startByte ?? 0;
    const stream = createReadStream(this.file, { highWaterMark: CHUNK_BYTES, start: startByte });
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let line = 0;
    let cutLine = startByte > 0; // the first line read from the middle of the file is a tail: dropped
    let chunkStartByte = startByte;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        this.options.onBytes?.(chunk);
        const text = rest + decoder.write(chunk);
        const lines = text.split('\n');
        rest = lines.pop()!;
        if (cutLine && lines.length > 0) {
          lines.shift();
          cutLine = false;
        }
        if (rest.length > MAX_LINE_CHARS)
          throw badRecord(this.file, String(line + 1), '', `a line under 16 MB`, `${rest.length} characters`);
        const batch: RecordedCall[] = [];
        for (const text of lines) {
          line++;
          const call = this.jsonlCall(text, line);
          if (call !== null) batch.push(call);
        }
        if (batch.length > 0) yield batch;
        this.chunkBeforeByte = chunkStartByte;
        chunkStartByte += chunk.length;
      }
      const last = rest + decoder.end();
      const call = this.jsonlCall(last, line + 1);
      if (call !== null) yield [call];
    } finally {
      stream.destroy();
    }
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
    if (!isObject(value)) throw badRecord(this.file, where, '', 'a JSON object {"t", "client", "method", "args"}', value);
    const offsetMs = this.clock.offsetOf(value.t, where, '/t');
    const { client, method, args } = value;
    if (typeof client !== 'string' || client === '')
      throw badRecord(this.file, where, '/client', "the caller's client ID (a string)", client);
    if (typeof method !== 'string' || !isMethodName(method)) throw badRecord(this.file, where, '/method', METHOD_NAME_EXPECTED, method);
    if (args !== undefined && !isObject(args)) throw badRecord(this.file, where, '/args', 'a JSON object', args);
    if (method === this.options.tokenMethod) {
      this.options.onSkip?.('token request');
      return null;
    }
    return { offsetMs, caller: client, method, bodyText: JSON.stringify(args ?? {}) };
  }

  private async *harBatches(): AsyncGenerator<RecordedCall[]> {
    const bytes = await readFile(this.file);
    this.options.onBytes?.(bytes);
    let doc: unknown;
    try {
      doc = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw badRecord(this.file, '1', '', 'a HAR file (one JSON document with log.entries)', bytes.subarray(0, 40).toString('utf8'));
    }
    const entries = isObject(doc) && isObject(doc.log) ? doc.log.entries : undefined;
    if (!Array.isArray(entries)) throw badRecord(this.file, '1', '/log/entries', 'an array of HAR entries', entries);
    // Entries in the order they started (captures are usually, not always, in that order).
    const started = entries.map((entry: unknown, index) => {
      const at = isObject(entry) ? entry.startedDateTime : undefined;
      const epochMs = typeof at === 'string' ? Date.parse(at) : Number.NaN;
      if (Number.isNaN(epochMs)) throw badRecord(this.file, 'entry', `/log/entries/${index}/startedDateTime`, 'an ISO 8601 instant', at);
      return { entry: entry as Record<string, unknown>, index, epochMs };
    });
    started.sort((a, b) => a.epochMs - b.epochMs || a.index - b.index);
    const callers = new Map<string, string>(); // access token → the client ID that obtained it
    // jose is loaded with the first HAR, not at every CLI start (its token requests may carry private_key_jwt assertions).
    const { decodeJwt } = await import('jose');
    const batch: RecordedCall[] = [];
    for (const { entry, index, epochMs } of started) {
      const call = this.harCall(entry, index, epochMs, callers, decodeJwt);
      if (call !== null) batch.push(call);
    }
    yield batch;
  }

  private harCall(
    entry: Record<string, unknown>,
    index: number,
    epochMs: number,
    callers: Map<string, string>,
    decodeJwt: typeof DecodeJwt,
  ): RecordedCall | null {
    const request = isObject(entry.request) ? entry.request : {};
    const url = typeof request.url === 'string' && URL.canParse(request.url) ? new URL(request.url) : null;
    const method = url === null ? null : /\/api\/([^/]+)$/.exec(url.pathname)?.[1];
    if (request.method !== 'POST' || method === undefined || method === null || !isMethodName(method)) {
      this.options.onSkip?.('not an API call');
      return null;
    }
    const postData = isObject(request.postData) ? request.postData : {};
    const bodyText = typeof postData.text === 'string' ? postData.text : '';
    if (method === this.options.tokenMethod) {
      const reason = learnToken(entry, bodyText, request, callers, decodeJwt); // learnt whether or not skips are counted
      this.options.onSkip?.(reason);
      return null;
    }
    let args: unknown = {};
    if (bodyText.trim() !== '') {
      try {
        args = JSON.parse(bodyText);
      } catch {
        args = undefined;
      }
    }
    if (!isObject(args))
      throw badRecord(this.file, 'entry', `/log/entries/${index}/request/postData/text`, "the call's JSON args (an object)", bodyText);
    const bearer = /^Bearer\s+(\S+)/i.exec(headerOf(request, 'authorization') ?? '')?.[1];
    const caller = (bearer === undefined ? undefined : callers.get(bearer)) ?? UNKNOWN_CALLER;
    return {
      offsetMs: this.clock.offsetOf(new Date(epochMs).toISOString(), 'entry', `/log/entries/${index}/startedDateTime`),
      caller,
      method,
      bodyText: JSON.stringify(args),
    };
  }
}

/**
 * A token request entry: remember which client ID its access token belongs to — the client its
 * private_key_jwt assertion names, else its form's `client_id`, else its Basic credentials' user —
 * and say how it is counted as skipped. The assertion is a credential: only the client ID is kept.
 */
function learnToken(
  entry: Record<string, unknown>,
  bodyText: string,
  request: Record<string, unknown>,
  callers: Map<string, string>,
  decodeJwt: typeof DecodeJwt,
): SkipReason {
  const form = new URLSearchParams(bodyText);
  const asserted = form.get('client_assertion_type') === CLIENT_ASSERTION_TYPE;
  const clientId = asserted ? assertedClient(form, decodeJwt) : (form.get('client_id') ?? basicUser(request));
  if (asserted && clientId === undefined) return 'malformed client assertion';
  const response = isObject(entry.response) ? entry.response : {};
  const content = isObject(response.content) ? response.content : {};
  let text = typeof content.text === 'string' ? content.text : '';
  if (content.encoding === 'base64') text = Buffer.from(text, 'base64').toString('utf8');
  let reply: unknown;
  try {
    reply = JSON.parse(text);
  } catch {
    return 'token request';
  }
  // The conventions' envelope wraps the token reply in `data`; a bare OAuth reply has it at the top.
  const data = isObject(reply) && isObject(reply.data) ? reply.data : reply;
  const token = isObject(data) ? data.access_token : undefined;
  if (typeof token === 'string' && clientId) callers.set(token, clientId);
  return 'token request';
}

/**
 * The client a private_key_jwt token request (RFC 7523) authenticates as: its assertion's `sub`,
 * which names the client as `iss` does; when they differ, the form's `client_id` if sent, else
 * `sub`. The JWT is decoded, not verified (the recording's server did that). Undefined when the
 * assertion is missing or not a JWT with a `sub`.
 */
function assertedClient(form: URLSearchParams, decodeJwt: typeof DecodeJwt): string | undefined {
  let claims: ReturnType<typeof DecodeJwt>;
  try {
    claims = decodeJwt(form.get('client_assertion') ?? '');
  } catch {
    return undefined;
  }
  const { iss, sub } = claims;
  if (typeof sub !== 'string' || sub === '') return undefined;
  return iss === sub ? sub : (form.get('client_id') ?? sub);
}

/** The user of the request's HTTP Basic credentials (the client ID, URL-encoded); undefined when there are none or it is undecodable. */
function basicUser(request: Record<string, unknown>): string | undefined {
  const credentials = /^Basic\s+(\S+)/i.exec(headerOf(request, 'authorization') ?? '')?.[1];
  if (credentials === undefined) return undefined;
  try {
    return decodeURIComponent(Buffer.from(credentials, 'base64').toString('utf8').split(':')[0] ?? '');
  } catch {
    return undefined;
  }
}

function headerOf(request: Record<string, unknown>, name: string): string | undefined {
  if (!Array.isArray(request.headers)) return undefined;
  for (const header of request.headers as unknown[])
    if (isObject(header) && typeof header.name === 'string' && header.name.toLowerCase() === name && typeof header.value === 'string')
      return header.value;
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
