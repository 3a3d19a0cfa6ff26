/**
 * What checks run with: the context one verify run shares, and each check's view of it (its
 * calls and its own clock).
 */
import type { Dispatcher } from 'undici';
import type { IdentityDispatchers } from '../api/undici-agents.ts';
import { callApi, type ApiReply } from '../api/http-call.ts';
import { OUTCOME_TIMEOUT } from '../api/outcome.ts';
import type { RequestSigner } from '../api/request-signer.ts';
import type { ClientPool } from './client-pool.ts';
import { sleepUntilOrThrow, type Clock } from './clock.ts';
import { toRoundTrip, type RoundTrip } from './round-trip.ts';
import type { TokenBook } from './tokens.ts';
import type { VerifyConfig } from './config.ts';

/** What every check of one verify run shares. */
export interface VerifyContext {
  readonly config: VerifyConfig;
  /** Connections by TLS identity: a client's calls present its certificate. */
  readonly dispatchers: IdentityDispatchers;
  /** The profile's sign module; null = requests are not signed. */
  readonly signer: RequestSigner | null;
  readonly clock: Clock;
  readonly tokens: TokenBook;
  readonly pool: ClientPool;
  readonly signal: AbortSignal;
}

export interface CallSpec {
  readonly method: string;
  /** JSON text by default `{}`. */
  readonly body?: string | Buffer;
  /** Send as this client: its current token (unless `token` is given), and the ledger counts it. */
  readonly clientId?: string;
  /** An explicit bearer token; null = no Authorization header. */
  readonly token?: string | null;
  /** A raw Authorization header; overrides the token. */
  readonly authorization?: string;
  readonly bodyCapBytes?: number;
  /** Another connection pool than the run's shared one. */
  readonly dispatcher?: Dispatcher;
  /** Another base URL than the target's: a replica reached directly. */
  readonly baseUrl?: string;
}

export interface Observed {
  readonly roundTrip: RoundTrip;
  readonly reply: ApiReply;
}

/**
 * One check's window on the run: API calls that feed the quota ledger, and time measured from
 * the check's start (the origin of every timestamp in its evidence).
 */
export class CheckContext {
  readonly originMs: number;
  /** Whether a call of this check went unanswered until its timeout (the target may be silent). */
  timedOut = false;

  constructor(readonly run: VerifyContext) {
    this.originMs = run.clock.now();
  }

  get config(): VerifyConfig {
    return this.run.config;
  }

  /** ms since the check started. */
  elapsed(): number {
    return this.run.clock.now() - this.originMs;
  }

  /** Wait until `atMs` since the check started (never earlier, see sleepUntilOrThrow). */
  until(atMs: number): Promise<void> {
    return sleepUntilOrThrow(this.run.clock, this.originMs + atMs, this.run.signal);
  }

  async call(spec: CallSpec): Promise<Observed> {
    const { run } = this;
    run.signal.throwIfAborted();
    const token =
      spec.token !== undefined ? spec.token : spec.clientId !== undefined ? await run.tokens.get(spec.clientId) : null;
    const client = spec.clientId === undefined ? undefined : run.config.clients.find((c) => c.id === spec.clientId);
    const signer = run.signer;
    const reply = await callApi(spec.dispatcher ?? run.dispatchers.for(spec.clientId), {
      baseUrl: spec.baseUrl ?? run.config.target,
      method: spec.method,
      body: spec.body ?? '{}',
      token,
      authorization: spec.authorization,
      bodyCapBytes: spec.bodyCapBytes,
      timeoutMs: run.config.requestTimeoutMs,
      signal: run.signal,
      ...(signer === null
        ? {}
        : {
            sign: ({ method, path, body, headers }) =>
              signer.sign(
                { method, path, body, clientId: client?.id ?? null, signingSecret: client?.signingSecret ?? null },
                headers,
              ),
          }),
    });
    if (spec.clientId !== undefined) run.pool.record(spec.clientId, reply.doneAtMs);
    if (reply.transportError === OUTCOME_TIMEOUT) this.timedOut = true;
    return { roundTrip: toRoundTrip(reply, spec.method, this.originMs, run.clock.epochMs()), reply };
  }
}
