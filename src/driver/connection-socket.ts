/**
 * Opening the socket of one of the load's own connections (rpcload's HTTP/1.1 client's and the
 * HTTP/2 sessions'): undici's connector signature, with undici's outcomes when it fails.
 */
import type { Socket } from 'node:net';
import { errors, type buildConnector } from 'undici';

/** The connector's parameters for `url`'s origin (an IPv6 hostname without its brackets). */
export function connectParamsOf(url: URL): buildConnector.Options {
  return {
    host: url.host,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    protocol: url.protocol,
    port: url.port,
  };
}

/**
 * Ask `connect` for a socket; `done` is called once, with the socket or with why there is none (a
 * connector that throws included: as with undici, a failed connect fails the requests waiting).
 */
export function openSocket(
  connect: buildConnector.connector,
  params: buildConnector.Options,
  done: (err: Error | null, socket: Socket | null) => void,
): void {
  const settle = (err: Error | null, socket: Socket | null): void =>
    err !== null || socket === null ? done(err ?? new errors.SocketError('no socket'), null) : done(null, socket);
  try {
    connect(params, settle);
  } catch (err) {
    settle(err as Error, null);
  }
}

/** Close a socket no one will use (its late errors are of no interest). */
export function discardSocket(socket: Socket): void {
  socket.on('error', ignore).destroy();
}

const ignore = (): void => undefined;
