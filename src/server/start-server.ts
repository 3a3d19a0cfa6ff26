/**
 * Starts the reference server (HTTP or HTTPS) in the calling thread: one server, or N replicas of
 * it on N ports behind a round-robin front, sharing their tokens, their methods' data (orders) and —
 * with a shared store — their rate-limit counts. Closes it gracefully, and restarts its replicas on request.
 */
import { randomInt } from 'node:crypto';
import type { ServerReply, ServerRequest } from './payload.ts';
import { createApp, type App, type SharedState } from './app.ts';
import { createMethodData } from './methods/registry.ts';
import { listenHttp, type Listener } from './http-listener.ts';
import { StoreOutage } from './limiter/store-outage.ts';
import { resolveServerConfig, type ServerConfig } from './resolved-config.ts';
import type { ServerHandle, ServerOptions } from './options.ts';
import { createGateLimiter } from './rate-gate.ts';
import { StatsRecorder } from './stats.ts';
import { TimerSet } from './timers.ts';
import { TokenStore } from './auth/token-store.ts';
import { resolveTlsMaterial, type TlsMaterial } from './tls.ts';

/** How long a restart lets a replica's in-flight requests finish before it cuts them. */
const RESTART_GRACE_MS = 200;

/** One replica: its app (its state) and its listener, both replaced by a restart. */
interface Replica {
  app: App;
  listener: Listener;
}

/**
 * Start the reference server. Resolves once it listens; rejects with an RpcloadError for bad
 * options or an address that cannot be bound (port taken, unknown host).
 */
export async function startServer(options: ServerOptions = {}): Promise<ServerHandle> {
  const config = resolveServerConfig(options, () => randomInt(0, 2 ** 32));
  const tls = await resolveTlsMaterial(config.tls);
  const timers = new TimerSet();
  const outage = new StoreOutage(config.storeOutagePolicy, config.storeFaultFile);
  const shared: SharedState = {
    tokens: new TokenStore(config.tokenTtlS * 1000),
    data: createMethodData(config),
    stats: new StatsRecorder(),
    limiter: config.limiterStore === 'shared' ? createGateLimiter(config) : null,
    outage,
  };
  const single = config.replicas === 1;
  const replicas: Replica[] = [];
  let front: Listener | null = null;
  try {
    for (let i = 0; i < config.replicas; i++) {
      // Replicas after the front's port when it is fixed (front P, replicas P+1…P+N), else any free port.
      const port = single || config.port === 0 ? config.port : config.port + 1 + i;
      replicas.push(await startReplica(config, tls, timers, shared, port));
    }
    if (!single) {
      let next = 0;
      const roundRobin = (req: ServerRequest, res: ServerReply): void =>
        replicas[next++ % replicas.length]!.app.handle(req, res);
      front = await listenHttp(roundRobin, config, tls, config.port, shared.stats);
    }
  } catch (err) {
    outage.dispose();
    await Promise.all(replicas.map((r) => r.listener.close()));
    throw err;
  }
  const sweeper = setInterval(
    () => {
      for (const replica of replicas) replica.app.sweep(Date.now());
    },
    Math.min(60_000, Math.max(1000, config.windowMs)),
  ).unref();
  const entry = front ?? replicas[0]!.listener;
  let closing: Promise<void> | undefined;
  /** Restarts one after another; a failed one does not stop the next, nor the close. */
  let restarting: Promise<void> = Promise.resolve();
  const settled = (): Promise<void> => restarting.catch(() => undefined);
  return {
    url: entry.url,
    port: entry.port,
    replicaUrls: single ? [] : replicas.map((r) => r.listener.url),
    ...(tls ? { certPem: tls.cert } : {}),
    stats: () => shared.stats.snapshot(),
    revokeTokens: (clientId) => shared.tokens.revoke(clientId),
    restart: () =>
      (restarting = settled()
        .then(() => Promise.all(replicas.map((r) => restartReplica(r, config, tls, timers, shared))))
        .then(() => undefined)),
    setStoreDown: (down) => outage.set(down),
    toggleStoreDown: () => outage.toggle(),
    close: () => {
      clearInterval(sweeper);
      outage.dispose();
      closing ??= settled()
        .then(() => Promise.all([front?.close(), ...replicas.map((r) => r.listener.close())]))
        .then(() => timers.clear());
      return closing;
    },
  };
}

async function startReplica(
  config: ServerConfig,
  tls: TlsMaterial | undefined,
  timers: TimerSet,
  shared: SharedState,
  port: number,
): Promise<Replica> {
  const app = createApp(config, timers, Date.now, shared);
  return { app, listener: await listenHttp(app.handle, config, tls, port, shared.stats) };
}

/** Close the replica's connections, forget its own state, and listen again on the same port. */
async function restartReplica(
  replica: Replica,
  config: ServerConfig,
  tls: TlsMaterial | undefined,
  timers: TimerSet,
  shared: SharedState,
): Promise<void> {
  const port = replica.listener.port;
  await replica.listener.close(RESTART_GRACE_MS);
  // A new app: a memory store starts empty; a shared limiter, the tokens, the methods' data, the counters carry over.
  Object.assign(replica, await startReplica(config, tls, timers, shared, port));
}
