/**
 * Opens the load's connections before the run's clock starts, the way wrk and autocannon do, and
 * hands them to undici's Clients through their `connect` option as they ask for connections.
 *
 * Why: a cold pool connects lazily, one socket per request that finds every connection busy. At a
 * few thousand arrivals per second the first arrivals all find the pool busy (it is still
 * connecting), so it creates up to `connections` sockets at once: measured ~100 ms of the event
 * loop spent in socket set-up in the first second, which showed up as schedule lag and dominated
 * the whole run's p99 (2,000/s: lag p99 67 ms, all of it in second 0). Opening the sockets before
 * the clock starts moves that cost out of the measurement. Sockets are made by undici's own
 * connector (same TLS trust, session cache, keep-alive and no-delay settings as lazy ones), which
 * skips unsolicited interim responses (see interim-responses.ts).
 *
 * A parked socket nobody asked for within `maxIdleMs` is closed: by then the start-up burst is
 * over, and a server's keep-alive timeout (Node's default is 5 s) could close it under us.
 * `onConnection` sees every socket handed to a Client (parked or new): what the run's connections
 * negotiated is counted there.
 */
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';
import { interimTolerantConnector } from '../api/interim-responses.ts';
import { directReadConnector } from './connection-socket.ts';

export interface WarmConnector {
  /** Pass as the Clients' (or a Pool's) `connect` option. */
  readonly connect: buildConnector.connector;
  /** Open up to `count` connections in parallel; resolves with how many opened. */
  warm(count: number): Promise<number>;
  /** Close every parked socket (the run is over, or nobody needs them). */
  dispose(): void;
}

interface ParkedSocket {
  readonly socket: Socket;
  readonly parkedAtMs: number;
}

const DEFAULT_MAX_IDLE_MS = 2000;

function ignoreError(): void {
  // A parked socket's error (a reset by the server) only means it is not handed out.
}

export function createWarmConnector(
  origin: URL,
  options: buildConnector.BuildOptions,
  maxIdleMs = DEFAULT_MAX_IDLE_MS,
  onConnection: (socket: Socket) => void = () => undefined,
  /** The sockets go to rpcload's HTTP/1.1 client, which reads them directly (connection-socket.ts); otherwise to undici. */
  forRpcloadHttp1 = false,
): WarmConnector {
  // rpcload's HTTP/1.1 client skips interim responses itself; undici needs its sockets' reads filtered.
  const base = forRpcloadHttp1 ? directReadConnector(options) : interimTolerantConnector(options);
  const parked: ParkedSocket[] = [];
  let expiryTimer: NodeJS.Timeout | null = null;
  let disposed = false;

  const expire = (): void => {
    expiryTimer = null;
    const cutoffMs = performance.now() - maxIdleMs;
    while (parked.length > 0 && parked[0]!.parkedAtMs <= cutoffMs) parked.shift()!.socket.destroy();
    scheduleExpiry();
  };

  function scheduleExpiry(): void {
    if (expiryTimer !== null || parked.length === 0) return;
    expiryTimer = setTimeout(expire, Math.max(0, parked[0]!.parkedAtMs + maxIdleMs - performance.now()));
    expiryTimer.unref();
  }

  /** A live parked socket, oldest first (it has the least keep-alive time left). */
  const takeParked = (): Socket | null => {
    while (parked.length > 0) {
      const { socket } = parked.shift()!;
      socket.off('error', ignoreError);
      if (!socket.destroyed && socket.readyState === 'open') return socket;
      socket.destroy();
    }
    return null;
  };

  const connect: buildConnector.connector = (connectOptions, callback) => {
    const socket = takeParked();
    if (socket === null)
      return base(connectOptions, (...args) => {
        if (args[0] === null) onConnection(args[1]);
        callback(...args);
      });
    onConnection(socket);
    // undici's own connector always answers asynchronously; its Clients rely on that ordering.
    queueMicrotask(() => callback(null, socket));
  };

  const openOne = (): Promise<boolean> =>
    new Promise((resolve) => {
      base(
        {
          hostname: origin.hostname.replace(/^\[|\]$/g, ''),
          host: origin.host,
          protocol: origin.protocol,
          port: origin.port,
        },
        (error, socket) => {
          if (error !== null || disposed) {
            socket?.destroy();
            return resolve(false);
          }
          socket.on('error', ignoreError);
          parked.push({ socket, parkedAtMs: performance.now() });
          resolve(true);
        },
      );
    });

  return {
    connect,
    async warm(count: number): Promise<number> {
      const opened = await Promise.all(Array.from({ length: Math.max(0, count) }, openOne));
      scheduleExpiry();
      return opened.filter(Boolean).length;
    },
    dispose(): void {
      disposed = true;
      if (expiryTimer !== null) clearTimeout(expiryTimer);
      expiryTimer = null;
      for (const { socket } of parked.splice(0)) socket.destroy();
    },
  };
}
