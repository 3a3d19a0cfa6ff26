/**
 * Pagination cursors for `items.list`: opaque, HMAC-signed, and valid only with the
 * parameters they were issued for.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a pagination cursor carries, signed so that clients can neither forge nor edit it. */
export interface CursorState {
  /** Index of the first item of the page the cursor points to. */
  readonly offset: number;
  /** Fingerprint of the request's other parameters (see paramsFingerprint). */
  readonly paramsHash: string;
  readonly expiresAtMs: number;
}

const SIGNATURE_BYTES = 16;

/**
 * Opaque, HMAC-signed pagination cursors: `base64url(offset.expiresAtMs.paramsHash).signature`.
 * The key is random per server, so cursors die with the server that made them.
 */
export class CursorCodec {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  encode(state: CursorState): string {
    const payload = Buffer.from(`${state.offset}.${state.expiresAtMs}.${state.paramsHash}`).toString('base64url');
    return `${payload}.${this.#sign(payload).toString('base64url')}`;
  }

  /** The cursor's state, or undefined when it is not a cursor this codec signed. */
  decode(cursor: string): CursorState | undefined {
    const dot = cursor.indexOf('.');
    if (dot === -1 || cursor.length > 512) return undefined;
    const payload = cursor.slice(0, dot);
    const signature = Buffer.from(cursor.slice(dot + 1), 'base64url');
    if (signature.length !== SIGNATURE_BYTES || !timingSafeEqual(signature, this.#sign(payload))) return undefined;
    const fields = /^(\d+)\.(\d+)\.([A-Za-z0-9_-]+)$/.exec(Buffer.from(payload, 'base64url').toString('utf8'));
    if (fields === null) return undefined;
    return { offset: Number(fields[1]), expiresAtMs: Number(fields[2]), paramsHash: fields[3]! };
  }

  #sign(payload: string): Buffer {
    return createHmac('sha256', this.#key).update(payload).digest().subarray(0, SIGNATURE_BYTES);
  }
}

/** JSON with object keys sorted at every level, so equal parameters always serialize the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Fingerprint of a paginated request's parameters other than `next`: a cursor is valid only
 * with exactly the parameters of the request that produced it (key order does not matter).
 */
export function paramsFingerprint(args: Readonly<Record<string, unknown>>, method = ''): string {
  const { next: _next, ...others } = args;
  // The method is part of it (items.list's is '', as before): one method's cursor is no good to another.
  return createHash('sha256').update(method).update(canonicalJson(others)).digest('base64url').slice(0, 22);
}

/**
 * Where a page starts: 0 without a cursor (`next` absent or null), the cursor's offset, or
 * undefined when `next` is not a live cursor of `codec` for these parameters — forged, from
 * another server, for other parameters or expired: all the caller's mistake.
 */
export function pageStart(next: unknown, codec: CursorCodec, paramsHash: string, nowMs: number): number | undefined {
  if (next === undefined || next === null) return 0;
  if (typeof next !== 'string') return undefined;
  const cursor = codec.decode(next);
  if (cursor === undefined || cursor.paramsHash !== paramsHash || nowMs >= cursor.expiresAtMs) return undefined;
  return cursor.offset;
}
