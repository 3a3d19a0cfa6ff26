/**
 * Token lifecycle for every client: fetch before the first request, refresh before `expires_in`
 * runs out (see token-lifetime.ts: never a storm, whatever the server says), and once more on a
 * 401 invalid_token — at most once per MIN_REFRESH_INTERVAL_MS per client. Token requests go through
 * their own dispatcher and are recorded apart from the API's figures. A token request refused with
 * 429 is asked again after its Retry-After (a few times, each refusal counted). Failures are
 * counted outcomes; a client without a token is simply not picked until a retry succeeds.
 */
import type { ApiCall, ApiReply, ApiTransport } from '../api/http-call.ts';
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { requestTokenHonouringRetryAfter, type TokenResult } from '../api/token.ts';
import {
  MIN_REFRESH_INTERVAL_MS,
  refreshDelayMs,
  tokenLifetimeNotice,
  unusableLifetimeNotice,
} from '../api/token-lifetime.ts';
import { safeTimeout } from '../util/timers.ts';
import type { Recorder } from '../metrics/recorder.ts';
import type { AuthPlan } from '../profile/plan.ts';
import type { ClientIdentity } from './client-identity.ts';

export interface TokenManagerOptions {
  /** By connection lane: a client's token requests go through its lane's (they present its certificate). */
  readonly dispatchers: readonly ApiTransport[];
  readonly baseUrl: string;
  readonly auth: AuthPlan;
  readonly recorder: Recorder;
  /** Run clock (ms since the run's origin). */
  readonly now: () => number;
  /** Each token request's overall deadline (ms). */
  readonly timeoutMs: number;
  /** Trace-context headers of each token request attempt (a traceparent, user agent, baggage). */
  readonly traceHeaders?: () => Readonly<Record<string, string>>;
  /** `--http-debug`: told of each token request and its reply. */
  readonly onExchange?: (call: ApiCall, reply: ApiReply) => void;
}

const RETRY_DELAYS_MS = [500, 1000, 2000, 5000, 10_000];

export class TokenManager {
  private stopped = false;
  /** Cancels token requests in flight when the run stops. */
  private readonly cancel = TokenManager.cancelController();

  /** One signal cancels every token request in flight (tens at once with many clients): not a listener leak. */
  private static cancelController(): AbortController {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  }

  constructor(private readonly options: TokenManagerOptions) {}

  /**
   * Fetch a token for every client, a few at a time; resolves with how many succeeded. `signal`
   * (the run's stop) ends it at once, cancelling the requests in flight.
   */
  async fetchAll(
    clients: readonly ClientIdentity[],
    signal: AbortSignal,
    concurrency = 16,
  ): Promise<{ ok: number; firstFailure: string | null }> {
    let ok = 0;
    let firstFailure: string | null = null;
    let next = 0;
    const onAbort = (): void => this.cancel.abort();
    if (signal.aborted) return { ok, firstFailure };
    signal.addEventListener('abort', onAbort, { once: true });
    const worker = async (): Promise<void> => {
      while (next < clients.length && !this.stopped && !signal.aborted) {
        const client = clients[next++]!;
        const result = await this.fetch(client);
        if (result.ok) ok++;
        else firstFailure ??= `client ${client.id}: ${result.detail}`;
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(concurrency, clients.length) }, worker));
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    return { ok, firstFailure };
  }

  /**
   * A request with token generation `generation` got 401 invalid_token: refresh once for it, but
   * never sooner than MIN_REFRESH_INTERVAL_MS after the client's last token request (a server
   * whose tokens die at once must not get a request storm).
   */
  onInvalidToken(client: ClientIdentity, generation: number): void {
    if (generation !== client.tokenGeneration || client.refreshing || this.stopped) return;
    const waitMs = client.lastTokenRequestAtMs + MIN_REFRESH_INTERVAL_MS - performance.now();
    if (waitMs <= 0) void this.fetch(client);
    else if (client.refreshTimer === null || client.refreshDueAtMs > performance.now() + waitMs)
      this.schedule(client, waitMs);
  }

  stop(clients: readonly ClientIdentity[]): void {
    this.stopped = true;
    this.cancel.abort();
    for (const client of clients) {
      if (client.refreshTimer) clearTimeout(client.refreshTimer);
      client.refreshTimer = null;
    }
  }

  private async fetch(client: ClientIdentity): Promise<TokenResult> {
    const { dispatchers, baseUrl, auth, recorder, now, timeoutMs } = this.options;
    client.refreshing = true;
    client.lastTokenRequestAtMs = performance.now();
    const record = (result: TokenResult): void =>
      recorder.recordToken({
        clientIndex: client.index,
        outcome: result.ok ? 'success' : result.outcome,
        latencyUs: result.latencyUs,
        doneAtMs: now(),
        detail: result.ok ? '' : result.detail,
      });
    const request = {
      baseUrl,
      tokenMethod: auth.tokenMethod,
      clientId: client.id,
      clientSecret: client.secret,
      clientAuth: auth.clientAuth,
      assertionKey: client.assertionKey,
      scope: auth.scope,
      extraFields: auth.extraFields,
      timeoutMs,
      signal: this.cancel.signal,
      headers: this.options.traceHeaders,
      ...(this.options.onExchange === undefined ? {} : { onExchange: this.options.onExchange }),
    };
    const result = await requestTokenHonouringRetryAfter(dispatchers[client.lane]!, request, record);
    client.refreshing = false;
    // A request we cancelled ourselves says nothing about the server; one answered before the
    // cancel took effect was still a token the server issued, and is counted.
    if (!result.ok && (this.stopped || this.cancel.signal.aborted)) return result;
    record(result);
    if (result.ok) {
      client.setToken(result.accessToken);
      if (result.unusableExpiresIn !== null) recorder.notice(unusableLifetimeNotice(result.unusableExpiresIn));
      if (result.expiresInS !== null) {
        const notice = tokenLifetimeNotice(result.expiresInS, auth.refreshMarginS);
        if (notice !== null) recorder.notice(notice);
        this.schedule(client, refreshDelayMs(result.expiresInS, auth.refreshMarginS));
      }
    } else {
      client.tokenFailures++;
      this.schedule(client, RETRY_DELAYS_MS[Math.min(client.tokenFailures, RETRY_DELAYS_MS.length) - 1]!);
    }
    return result;
  }

  private schedule(client: ClientIdentity, delayMs: number): void {
    if (client.refreshTimer) clearTimeout(client.refreshTimer);
    client.refreshDueAtMs = performance.now() + delayMs;
    client.refreshTimer = safeTimeout(() => {
      client.refreshTimer = null;
      if (!client.refreshing && !this.stopped) void this.fetch(client);
    }, delayMs);
    client.refreshTimer.unref();
  }
}
