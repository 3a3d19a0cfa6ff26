/** A client's first request after sitting out a Retry-After back-off carries this, once. */
export interface BackoffMark {
  /** How long the client actually waited since the 429 that started the back-off (ms). */
  readonly waitedMs: number;
  /** The Retry-After (s) it honoured, in the compact form of api/retry-after.ts (absent or unusable included). */
  readonly retryAfterS: number;
}

/**
 * One client ID's live state in a run: its current token (as a ready-made undici header list),
 * its back-off after a 429 under the `honour` policy, and the mark that tells the recorder which
 * request was the first one sent after waiting out a Retry-After. The secret, signing secret and
 * signing key stay here, in memory; nothing here is ever serialized.
 */
import type { AssertionKey } from '../api/client-assertion.ts';

export class ClientIdentity {
  /** Header list for API requests with the current token; null until the first token arrives. */
  headers: string[] | null = null;
  /** Bumped on each new token, so a 401 for an old token does not trigger a second refresh. */
  tokenGeneration = 0;
  refreshing = false;
  /** Consecutive token failures (drives the retry delay). */
  tokenFailures = 0;
  refreshTimer: NodeJS.Timeout | null = null;
  /** When the pending refresh timer fires (performance.now() ms). */
  refreshDueAtMs = 0;
  /** When this client last asked for a token (performance.now() ms); -Infinity before the first. */
  lastTokenRequestAtMs = Number.NEGATIVE_INFINITY;

  /** Honour policy: no new request before this time (run clock, ms). */
  backoffUntilMs = 0;
  /** The 429 that started the back-off: when it was received (run clock, ms) and its Retry-After (s); null once marked. */
  private backoffStart: { readonly receivedAtMs: number; readonly retryAfterS: number } | null = null;

  constructor(
    readonly index: number,
    readonly id: string,
    readonly secret: string,
    /** Relative share of arrivals. */
    readonly weight: number,
    /** Its connection lane (see ConnectionSet): 0 unless it presents a certificate of its own. */
    readonly lane = 0,
    /** Handed to the sign module with each of its requests. */
    readonly signingSecret = secret,
    /** private_key_jwt: the key its token requests' assertions are signed with. */
    readonly assertionKey: AssertionKey | null = null,
  ) {}

  /** Can this client send now? */
  isAvailable(nowMs: number): boolean {
    return this.headers !== null && nowMs >= this.backoffUntilMs;
  }

  /** Install a new token: every API request of this client reuses this one header list. */
  setToken(accessToken: string): void {
    this.headers = ['content-type', 'application/json', 'authorization', `Bearer ${accessToken}`];
    this.tokenGeneration++;
    this.tokenFailures = 0;
  }

  /**
   * A 429 arrived (honour policy): pause until Retry-After has passed since its receipt. A later
   * refusal of a request sent earlier never shortens a pause already running. Without a usable
   * Retry-After the client sits out `fallbackMs` (one contract window).
   */
  startBackoff(receivedAtMs: number, retryAfterS: number, fallbackMs: number): void {
    const untilMs = receivedAtMs + (retryAfterS >= 0 ? retryAfterS * 1000 : fallbackMs);
    if (untilMs <= this.backoffUntilMs) return;
    this.backoffUntilMs = untilMs;
    this.backoffStart = { receivedAtMs, retryAfterS };
  }

  /**
   * Called when a request is sent: if it is the first since a back-off ended, returns how long the
   * client actually waited since the 429 and the Retry-After it honoured (else null), once.
   */
  takeBackoffMark(sentAtMs: number): BackoffMark | null {
    const start = this.backoffStart;
    if (start === null || sentAtMs < this.backoffUntilMs) return null;
    this.backoffStart = null;
    return { waitedMs: sentAtMs - start.receivedAtMs, retryAfterS: start.retryAfterS };
  }
}
