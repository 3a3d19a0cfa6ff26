/**
 * Opening the socket of one of the load's own connections (rpcload's HTTP/1.1 client's and the
 * HTTP/2 sessions'): undici's connector signature, with undici's outcomes when it fails; and the
 * direct-read sockets of rpcload's HTTP/1.1 client.
 */
import type { Socket } from 'node:net';
import { buildConnector, errors } from 'undici';

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

/** Where a direct-read socket's bytes go (see directReadConnector). */
type ByteSink = (chunk: Buffer) => void;

/** Bytes read into it are handled before the next read: one buffer serves every direct-read socket. */
const READ_BUFFER_BYTES = 64 * 1024;
let sharedReadBuffer: Buffer | null = null;

/** A direct-read socket's route to its owner; bytes read before it has one are kept (copied) for it. */
class ReadRoute {
  sink: ByteSink | null = null;
  held: Buffer[] | null = null;
  closed = false;
  readonly onread = {
    buffer: (sharedReadBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES)),
    callback: (nread: number, buffer: Uint8Array): boolean => {
      const chunk = (buffer as Buffer).subarray(0, nread);
      if (this.sink !== null) this.sink(chunk);
      else if (!this.closed) (this.held ??= []).push(Buffer.from(chunk));
      return true; // go on reading (false would pause the socket)
    },
  };
}

const routes = new WeakMap<Socket, ReadRoute>();

/**
 * undici's connector, except that plain-http sockets read into one shared buffer and hand the
 * bytes to their owner's sink (`readDirect`) rather than emitting 'data'.
 *
 * Why: a socket emitting 'data' costs, per read, a 64 KB allocation, a new ArrayBuffer and Buffer,
 * the Readable stream's push and a `process.nextTick` (and the tick queue run after it). Node's
 * `onread` option reads into a buffer the caller gives and calls back with the byte count instead:
 * 12 % less CPU per request in the closed model (docs/performance.md). The bytes are valid during
 * the call only, which the connection contract already says of a response's pieces
 * (connection.ts); rpcload's HTTP/1.1 client copies whatever it keeps.
 *
 * Each socket gets a connector of its own (undici passes unknown options on to `net.connect`, and
 * `onread`'s callback is told no socket): a connection opens rarely, a request never does. TLS
 * sockets (Node's `onread` does not apply to them) come from undici's connector unchanged.
 */
export function directReadConnector(options: buildConnector.BuildOptions): buildConnector.connector {
  const tls = buildConnector(options);
  return (params, callback) => {
    if (params.protocol !== 'http:') return tls(params, callback);
    const route = new ReadRoute();
    buildConnector({ ...options, onread: route.onread })(params, (err, socket) => {
      // undici calls back with the error alone when the connect fails.
      if (err !== null) callback(err, null);
      else {
        routes.set(socket, route);
        callback(null, socket);
      }
    });
  };
}

/**
 * Send `socket`'s bytes to `sink` (first whatever it read before), if it is a direct-read socket
 * (directReadConnector); false when it emits 'data' as usual.
 */
export function readDirect(socket: Socket, sink: ByteSink): boolean {
  const route = routes.get(socket);
  if (route === undefined) return false;
  route.sink = sink;
  const held = route.held;
  route.held = null;
  if (held !== null) for (const chunk of held) if (route.sink === sink) sink(chunk);
  return true;
}

/** Stop handing `socket`'s bytes to anyone (its owner let go of it); what it reads from now on is dropped. */
export function stopReading(socket: Socket): void {
  const route = routes.get(socket);
  if (route === undefined) return;
  route.sink = null;
  route.held = null;
  route.closed = true;
}
