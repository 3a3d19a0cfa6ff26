/** Where the reference server enforces its rate limit, and where each rate-limit fault applies. */
import { setTimeout as delay } from 'node:timers/promises';
import type { ServerConfig } from './resolved-config.ts';
import { createLimiter, retryAfterSeconds } from './limiter/create-limiter.ts';
import type { LimitDecision, Limiter } from './limiter/limiter.ts';
import type { StoreOutage } from './limiter/store-outage.ts';
import { errorReply, textReply, type Reply } from './reply.ts';
import type { StatsRecorder } from './stats.ts';

/** Who is asking: the quota key is derived from these (per client, unless a fault says otherwise). */
export interface Caller {
  readonly clientId: string;
  readonly token: string;
  readonly method: string;
}

/**
 * `racy-counter`: the pause between check and increment, like a round trip to a shared store.
 * Long enough that a concurrent burst reliably lands inside it, even over fresh connections.
 */
export const RACY_STORE_ROUND_TRIP_MS = 10;

/** Retry-After of a `closed-429` refusal while the store is down: the store knows no reset, so "soon". */
export const OUTAGE_RETRY_AFTER_S = 1;

/** The limiter for a server's algorithm and limit, its rate-limit faults applied. */
export function createGateLimiter(config: ServerConfig): Limiter {
  const { faults } = config;
  const limitOffset = faults.has('limit-plus-one') ? 1 : faults.has('limit-minus-one') ? -1 : 0;
  return createLimiter(config.algorithm, {
    limit: Math.max(1, config.limit + limitOffset),
    windowMs: config.windowMs,
    countRefused: faults.has('count-refused'),
  });
}

/**
 * The rate limit as the server applies it: picks the quota key, asks the limiter, counts the
 * verdict per client, and builds the 429. Each rate-limit fault is one switch here.
 */
export class RateGate {
  readonly #limiter: Limiter;
  readonly #keyOf: (caller: Caller) => string;
  readonly #racy: boolean;
  readonly #refusal: (retryAfterMs: number) => Reply;
  readonly #outage: StoreOutage | null;

  /**
   * `limiter`: the store the counts live in (shared by replicas when given; a new one otherwise);
   * `outage`: the switch that takes that store down.
   */
  constructor(
    config: ServerConfig,
    private readonly stats: StatsRecorder,
    limiter: Limiter = createGateLimiter(config),
    outage: StoreOutage | null = null,
  ) {
    const { faults } = config;
    this.#limiter = limiter;
    this.#outage = outage;
    this.#keyOf = faults.has('quota-per-token')
      ? (caller) => caller.token
      : faults.has('quota-global')
        ? () => '*'
        : faults.has('quota-per-method')
          ? (caller) => `${caller.clientId}\n${caller.method}`
          : (caller) => caller.clientId;
    this.#racy = faults.has('racy-counter');
    const rounding = faults.has('retry-after-floor') ? 'floor' : 'ceil';
    const withHeader = !faults.has('retry-after-missing');
    const enveloped = !faults.has('429-no-envelope');
    this.#refusal = (retryAfterMs) => {
      const headers = withHeader ? { 'Retry-After': String(retryAfterSeconds(retryAfterMs, rounding)) } : undefined;
      return enveloped ? errorReply(429, 'rate_limit_exceeded', headers) : textReply(429, 'Too Many Requests', headers);
    };
  }

  /** undefined when admitted, else the 429 reply. Async only under the `racy-counter` fault. */
  admit(caller: Caller, nowMs: number): Reply | undefined | Promise<Reply | undefined> {
    if (this.#outage?.down === true) return this.#withoutStore(caller);
    const key = this.#keyOf(caller);
    if (this.#racy) return this.#admitRacily(caller, key, nowMs);
    return this.#verdict(caller, this.#limiter.decide(key, nowMs));
  }

  /** Forget idle quota state (called periodically). */
  sweep(nowMs: number): void {
    this.#limiter.sweep(nowMs);
  }

  /** The store is down: the outage policy decides, and nothing is counted. */
  #withoutStore(caller: Caller): Reply | undefined {
    const policy = this.#outage!.policy;
    this.stats.decision(caller.clientId, policy === 'open');
    if (policy === 'open') return undefined;
    if (policy === 'closed-429') return this.#refusal(OUTAGE_RETRY_AFTER_S * 1000);
    return errorReply(503, 'unexpected_error');
  }

  /** The defect under test: concurrent requests all pass the check before any of them is counted. */
  async #admitRacily(caller: Caller, key: string, nowMs: number): Promise<Reply | undefined> {
    const decision = this.#limiter.check(key, nowMs);
    await delay(RACY_STORE_ROUND_TRIP_MS);
    if (decision.admitted) this.#limiter.record(key, nowMs, true);
    return this.#verdict(caller, decision);
  }

  #verdict(caller: Caller, decision: LimitDecision): Reply | undefined {
    this.stats.decision(caller.clientId, decision.admitted);
    return decision.admitted ? undefined : this.#refusal(decision.retryAfterMs);
  }
}
