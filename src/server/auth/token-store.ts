/** The reference server's access tokens, their expiry, and a cap on how many are kept. */
import { randomBytes } from 'node:crypto';

/** Most tokens kept alive at once; beyond it the oldest are dropped (memory stays bounded). */
export const MAX_LIVE_TOKENS = 200_000;

interface TokenRecord {
  readonly clientId: string;
  readonly expiresAtMs: number;
}

export type TokenLookup =
  { readonly ok: true; readonly clientId: string } | { readonly ok: false; readonly reason: 'unknown' | 'expired' };

/** Issued access tokens: random opaque strings bound to a client ID, expiring after a TTL. */
export class TokenStore {
  /** Insertion order is issue order, which makes dropping the oldest cheap. */
  readonly #tokens = new Map<string, TokenRecord>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxLiveTokens = MAX_LIVE_TOKENS,
  ) {}

  issue(clientId: string, nowMs: number): string {
    // 32 random bytes, base64url: a valid RFC 6750 b64token.
    const token = randomBytes(32).toString('base64url');
    this.#tokens.set(token, { clientId, expiresAtMs: nowMs + this.ttlMs });
    if (this.#tokens.size > this.maxLiveTokens) {
      const oldest = this.#tokens.keys().next();
      if (oldest.done !== true) this.#tokens.delete(oldest.value);
    }
    return token;
  }

  lookup(token: string, nowMs: number): TokenLookup {
    const record = this.#tokens.get(token);
    if (record === undefined) return { ok: false, reason: 'unknown' };
    if (nowMs >= record.expiresAtMs) {
      this.#tokens.delete(token);
      return { ok: false, reason: 'expired' };
    }
    return { ok: true, clientId: record.clientId };
  }

  /** Invalidate every token, or one client's. */
  revoke(clientId?: string): void {
    if (clientId === undefined) {
      this.#tokens.clear();
      return;
    }
    for (const [token, record] of this.#tokens) if (record.clientId === clientId) this.#tokens.delete(token);
  }

  /** Drop expired tokens. */
  sweep(nowMs: number): void {
    for (const [token, record] of this.#tokens) if (nowMs >= record.expiresAtMs) this.#tokens.delete(token);
  }

  get size(): number {
    return this.#tokens.size;
  }
}
