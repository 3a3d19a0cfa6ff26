/**
 * Token lifecycle for every client: fetch before the first request, refresh `refreshMarginS`
 * before `expires_in` runs out, and once more on a 401 invalid_token. Token requests go through
 * their own dispatcher and are recorded apart from the API's figures. Failures are counted
 * outcomes; a client without a token is simply not picked until a retry succeeds.
 */
import type { Dispatcher } from 'undici';
import { requestToken, type TokenResult } from '../api/token.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { AuthPlan } from '../profile/plan.ts';
import type { ClientIdentity } from './client-identity.ts';

export interface TokenManagerOptions {
  readonly dispatcher: Dispatcher;
  readonly baseUrl: string;
  readonly auth: AuthPlan;
  readonly recorder: Recorder;
  /** Run clock (ms since the run's origin). */
  readonly now: () => number;
  readonly timeoutMs: number;
}

const RETRY_DELAYS_MS = [500, 1000, 2000, 5000, 10_000];

export class TokenManager {
  private stopped = false;

  constructor(private readonly options: TokenManagerOptions) {}

  /** Fetch a token for every client, a few at a time; resolves with how many succeeded. */
  async fetchAll(clients: readonly ClientIdentity[], concurrency = 16): Promise<{ ok: number; firstFailure: string | null }> {
    let ok = 0;
    let firstFailure: string | null = null;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < clients.length && !this.stopped) {
        const client = clients[next++]!;
        const result = await this.fetch(client);
        if (result.ok) ok++;
        else firstFailure ??= `client ${client.id}: ${result.detail}`;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, clients.length) }, worker));
    return { ok, firstFailure };
  }

  /** A request with token generation `generation` got 401 invalid_token: refresh once for it. */
  onInvalidToken(client: ClientIdentity, generation: number): void {
    if (generation === client.tokenGeneration && !client.refreshing) void this.fetch(client);
  }

  stop(clients: readonly ClientIdentity[]): void {
    this.stopped = true;
    for (const client of clients) {
      if (client.refreshTimer) clearTimeout(client.refreshTimer);
      client.refreshTimer = null;
    }
  }

  private async fetch(client: ClientIdentity): Promise<TokenResult> {
    const { dispatcher, baseUrl, auth, recorder, now, timeoutMs } = this.options;
    client.refreshing = true;
    const result = await requestToken(dispatcher, {
      baseUrl,
      tokenMethod: auth.tokenMethod,
      clientId: client.id,
      clientSecret: client.secret,
      clientAuth: auth.clientAuth,
      scope: auth.scope,
      extraFields: auth.extraFields,
      timeoutMs,
    });
    client.refreshing = false;
    recorder.recordToken({
      clientIndex: client.index,
      outcome: result.ok ? 'success' : result.outcome,
      latencyUs: result.latencyUs,
      doneAtMs: now(),
      detail: result.ok ? '' : result.detail,
    });
    if (this.stopped) return result;
    if (result.ok) {
      client.setToken(result.accessToken);
      if (result.expiresInS !== null) this.schedule(client, this.refreshDelayMs(result.expiresInS));
    } else {
      client.tokenFailures++;
      this.schedule(client, RETRY_DELAYS_MS[Math.min(client.tokenFailures, RETRY_DELAYS_MS.length) - 1]!);
    }
    return result;
  }

  /** Refresh `refreshMarginS` early, but never later than 80 % of the lifetime (short-lived tokens). */
  private refreshDelayMs(expiresInS: number): number {
    const lifetimeMs = expiresInS * 1000;
    return Math.max(0, Math.min(lifetimeMs - this.options.auth.refreshMarginS * 1000, lifetimeMs * 0.8));
  }

  private schedule(client: ClientIdentity, delayMs: number): void {
    if (client.refreshTimer) clearTimeout(client.refreshTimer);
    client.refreshTimer = setTimeout(() => {
      client.refreshTimer = null;
      if (!client.refreshing) void this.fetch(client);
    }, delayMs);
    client.refreshTimer.unref();
  }
}
