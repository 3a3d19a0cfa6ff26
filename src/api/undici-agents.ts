/**
 * undici Agents built from rpcload's connection settings (dispatcher.ts): the dispatcher of verify's
 * requests and of token requests to an HTTP/2 target, and one per TLS identity for clients that
 * each present their own certificate. Its own module because undici's Agent and Client, with the
 * parts of undici that rpcload's own HTTP client does not use, take ~30 ms of CPU to load: a run
 * on rpcload's client over HTTP/1.1 never loads them (run-load.ts imports this module when needed;
 * scripts/build.js gives these names to this module and to undici-connection.ts only).
 */
import { Agent, type Dispatcher } from 'undici';
import { connectOptions, type ClientTlsIdentity, type DispatcherOptions } from './dispatcher.ts';
import { interimTolerantConnector } from './interim-responses.ts';

/** An undici Agent (a Pool per origin) with keep-alive and the given limits; unsolicited 1xx responses are skipped. */
export function createDispatcher(options: DispatcherOptions = {}): Agent {
  const connect = connectOptions(options);
  return new Agent({
    connections: options.connections ?? null,
    pipelining: options.pipelining ?? 1,
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    allowH2: connect.allowH2,
    connect: interimTolerantConnector(connect),
  });
}

/**
 * Dispatchers by TLS identity: one shared by every client without a certificate of its own (it
 * presents the common one, if any), and one per client that has its own, made when first used.
 */
export class IdentityDispatchers {
  private readonly shared: Agent;
  private readonly own = new Map<string, Agent>();

  constructor(
    private readonly base: DispatcherOptions,
    /** Clients with a certificate of their own, by client id. */
    private readonly identities: ReadonlyMap<string, ClientTlsIdentity>,
  ) {
    this.shared = createDispatcher(base);
  }

  /** The dispatcher for requests sent as `clientId` (the shared one when it has no certificate of its own, or no client is named). */
  for(clientId?: string | null): Dispatcher {
    const identity = clientId == null ? undefined : this.identities.get(clientId);
    if (identity === undefined) return this.shared;
    let agent = this.own.get(clientId!);
    if (agent === undefined) this.own.set(clientId!, (agent = createDispatcher({ ...this.base, identity })));
    return agent;
  }

  /** A dispatcher of its own for `clientId`'s identity, with other limits (the caller closes it). */
  create(clientId: string | null, overrides: Pick<DispatcherOptions, 'connections'>): Agent {
    const identity = clientId === null ? undefined : this.identities.get(clientId);
    return createDispatcher({ ...this.base, ...(identity === undefined ? {} : { identity }), ...overrides });
  }

  async close(): Promise<void> {
    await Promise.all([this.shared, ...this.own.values()].map((agent) => agent.close().catch(() => undefined)));
  }

  async destroy(): Promise<void> {
    await Promise.all([this.shared, ...this.own.values()].map((agent) => agent.destroy().catch(() => undefined)));
  }
}
