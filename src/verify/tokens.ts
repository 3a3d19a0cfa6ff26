/**
 * The verifier's access tokens per client: cached, refreshed before expiry, and
 * remembered for redaction.
 */
import type { IdentityDispatchers } from '../api/undici-agents.ts';
import { requestTokenHonouringRetryAfter, type TokenResult } from '../api/token.ts';
import { refreshDelayMs } from '../api/token-lifetime.ts';
import { RpcloadError } from '../errors.ts';
import type { Clock } from './clock.ts';
import type { VerifyConfig } from './config.ts';

/** Re-fetch a cached token this long before its `expires_in` runs out (s); see refreshDelayMs for short lifetimes. */
const REFRESH_MARGIN_S = 30;

interface CachedToken {
  readonly token: string;
  /** Monotonic ms after which the token is refreshed; Infinity when no lifetime was given. */
  readonly refreshAtMs: number;
}

/**
 * Access tokens per client ID. Token requests do not go through the quota ledger: the
 * conventions count the rate limit on API methods, and the reference server exempts them.
 * Every token handed out is remembered so that redaction can scrub it from evidence.
 */
export class TokenBook {
  readonly #cache = new Map<string, CachedToken>();
  readonly #issued = new Set<string>();

  constructor(
    private readonly config: VerifyConfig,
    private readonly dispatchers: IdentityDispatchers,
    private readonly clock: Clock,
    /** The verify's stop: ends a wait for a Retry-After at once. */
    private readonly signal?: AbortSignal,
  ) {}

  /** The client's current token, fetched on first use and again before it expires. */
  async get(clientId: string): Promise<string> {
    const cached = this.#cache.get(clientId);
    if (cached !== undefined && this.clock.now() < cached.refreshAtMs) return cached.token;
    return this.fresh(clientId, true);
  }

  /** A new token for the client; `makeCurrent` also makes it the one `get` returns. */
  async fresh(clientId: string, makeCurrent: boolean): Promise<string> {
    const result = await this.request(clientId);
    if (!result.ok) throw new RpcloadError('token_failed', `client ${clientId}: ${result.detail}`);
    this.adopt(clientId, result, makeCurrent);
    return result.accessToken;
  }

  /** One token request, asked again after a 429's Retry-After (preflight turns a failure into one clear message). */
  request(clientId: string): Promise<TokenResult> {
    const client = this.config.clients.find((c) => c.id === clientId);
    if (client === undefined) throw new Error(`unknown client ${clientId}`);
    return requestTokenHonouringRetryAfter(this.dispatchers.for(client.id), {
      baseUrl: this.config.target,
      tokenMethod: this.config.tokenMethod,
      clientId: client.id,
      clientSecret: client.secret,
      clientAuth: this.config.clientAuth,
      assertionKey: client.assertionKey,
      scope: this.config.scope,
      extraFields: this.config.extraFields,
      timeoutMs: this.config.requestTimeoutMs,
      ...(this.signal === undefined ? {} : { signal: this.signal }),
    });
  }

  /** Remember a token that was obtained (for redaction) and, when `makeCurrent`, cache it. */
  adopt(clientId: string, result: Extract<TokenResult, { ok: true }>, makeCurrent = true): void {
    this.#issued.add(result.accessToken);
    if (!makeCurrent) return;
    // Never "refresh on every request" for a lifetime under the margin: a token storm.
    const refreshAtMs =
      result.expiresInS === null ? Infinity : this.clock.now() + refreshDelayMs(result.expiresInS, REFRESH_MARGIN_S);
    this.#cache.set(clientId, { token: result.accessToken, refreshAtMs });
  }

  /** Every token and secret seen so far: what redaction must scrub. */
  secrets(): string[] {
    return [...this.#issued, ...this.config.clients.map((c) => c.secret)];
  }
}
