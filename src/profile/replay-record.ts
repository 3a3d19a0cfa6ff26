/**
 * One recorded call as both recording formats yield it (JSONL in replay-recording.ts, HAR in
 * replay-har.ts): its shape, why a record is not replayed, its offset from the recording's first
 * call, and the one-line error naming a bad record.
 */
import { basename } from 'node:path';
import { RpcloadError } from '../errors.ts';

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
 * with its token have no known caller), a HAR's other URLs, its API calls to another host than the
 * API's (a third-party endpoint under an `/api/` path), and its calls whose body is not JSON args.
 */
export type SkipReason =
  'token request' | 'malformed client assertion' | 'not an API call' | 'another host' | 'args not JSON';

/** Caller named for a HAR call whose bearer token no recorded token request issued. */
export const UNKNOWN_CALLER = '(unknown caller)';

/** One bad record: "FILE:LINE: /json/path: expected …, found …" (exit 2). */
export function badRecord(
  file: string,
  where: string,
  pointer: string,
  expectedText: string,
  found: unknown,
): RpcloadError {
  const shown =
    typeof found === 'string'
      ? JSON.stringify(found.length > 60 ? `${found.slice(0, 60)}…` : found)
      : JSON.stringify(found);
  return new RpcloadError(
    'bad_replay',
    `${basename(file)}:${where}: ${pointer}: expected ${expectedText}, found ${shown ?? 'nothing'}`,
  );
}

/**
 * Offsets from each record's `t`: a number is ms since the first call; a string is an ISO 8601
 * instant, made relative to the first call's. One recording uses one form.
 */
export class OffsetClock {
  private form: 'offset' | 'instant' | null;

  constructor(
    private readonly file: string,
    /** Known ahead when reading from the window's start: its first call is not the recording's. */
    private originEpochMs: number | null,
  ) {
    this.form = originEpochMs === null ? null : 'instant';
  }

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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
