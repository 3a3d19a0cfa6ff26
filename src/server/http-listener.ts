/**
 * One HTTP, HTTPS or HTTP/2-over-TLS listener of the reference server: the Node server around a
 * request handler, the answers to requests the HTTP parser rejects, listening on a port, and a
 * graceful close.
 */
import { createServer as createHttpServer, STATUS_CODES, type Server } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2Session } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { RpcloadError } from '../errors.ts';
import type { ServerReply, ServerRequest } from './payload.ts';
import type { ServerConfig } from './resolved-config.ts';
import type { StatsRecorder } from './stats.ts';
import { tlsServerOptions, type TlsMaterial } from './tls.ts';

/** How long close() lets in-flight requests finish before destroying their sockets. */
export const CLOSE_GRACE_MS = 1000;

export interface Listener {
  /** Base URL without a trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Stop accepting, let in-flight requests finish for up to `graceMs`, then destroy what is left. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Listen with `handler` on `port` (0 = any free one) of the configured host. Rejects with an
 * RpcloadError when the address cannot be bound (port taken, unknown host).
 */
export async function listenHttp(
  handler: (req: ServerRequest, res: ServerReply) => void,
  config: ServerConfig,
  tls: TlsMaterial | undefined,
  port: number,
  stats: StatsRecorder,
): Promise<Listener> {
  const httpOptions = {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    // Node checks those timeouts on this period (default 30 s, far too coarse for a 10 s timeout).
    connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    // HTTP keep-alive is Node's default (idle connections close after keepAliveTimeout, 5 s).
  };
  const secure = tls === undefined ? null : tlsServerOptions(tls, config.faults.has('tls-legacy'), config.clientCa);
  let server: NetServer;
  let closeServer: (graceMs: number) => Promise<void>;
  if (secure !== null && config.http2) {
    // node:http2 with its compatibility API, so the one request handler serves both; clients that
    // do not offer h2 in ALPN get HTTP/1.1 on the same port.
    const http2Server = createSecureServer({ ...secure, allowHTTP1: true }, handler);
    const open = trackConnections(http2Server);
    closeServer = (graceMs) => closeHttp2Gracefully(http2Server, open, graceMs);
    server = http2Server;
  } else {
    const httpServer: Server =
      secure !== null
        ? createHttpsServer({ ...httpOptions, ...secure }, handler)
        : createHttpServer(httpOptions, handler);
    httpServer.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, stats));
    closeServer = (graceMs) => closeGracefully(httpServer, graceMs);
    server = httpServer;
  }
  const bound = await listen(server, config.host, port);
  let closing: Promise<void> | undefined;
  return {
    url: `${tls ? 'https' : 'http'}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${bound}`,
    port: bound,
    close: (graceMs = CLOSE_GRACE_MS) => (closing ??= closeServer(graceMs)),
  };
}

function listen(server: NetServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'address already in use'
          : err.code === 'EACCES'
            ? 'permission denied'
            : (err.code ?? err.message);
      reject(new RpcloadError('listen_failed', `cannot listen on ${host}:${port}: ${why}`));
    });
    server.listen(port, host, () => {
      // After start-up, a server error must not crash the process (there is no caller to tell).
      server.removeAllListeners('error').on('error', () => undefined);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Requests the HTTP parser rejects (malformed, headers too large, too slow) still get an error
 * envelope, then the connection is closed.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket, stats: StatsRecorder): void {
  const inResponse =
    (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || inResponse) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = `{"status":"error","error":"${status === 408 ? 'request_timeout' : 'invalid_request'}"}`;
  stats.request();
  stats.status(status);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The open HTTP/2 sessions and TLS connections of an HTTP/2 server, kept up to date as they come and go. */
function trackConnections(server: Http2SecureServer): {
  readonly sessions: Set<Http2Session>;
  readonly sockets: Set<Socket>;
} {
  const sessions = new Set<Http2Session>();
  const sockets = new Set<Socket>();
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return { sessions, sockets };
}

/**
 * The HTTP/2 server's close: stop accepting, tell every session to finish its streams and go away
 * (GOAWAY), then destroy whatever is still open after `graceMs` (HTTP/1.1 keep-alive connections
 * on the same port included).
 */
async function closeHttp2Gracefully(
  server: Http2SecureServer,
  open: ReturnType<typeof trackConnections>,
  graceMs: number,
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const session of open.sessions) session.close();
  const deadline = setTimeout(() => {
    for (const session of open.sessions) session.destroy();
    for (const socket of open.sockets) socket.destroy();
  }, graceMs);
  await closed;
  clearTimeout(deadline);
}

/** Stop accepting, let in-flight requests finish for up to `graceMs`, then destroy what is left. */
async function closeGracefully(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their last response ends: close them as they do.
  const idleCloser = setInterval(() => server.closeIdleConnections(), 25);
  server.closeIdleConnections();
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearInterval(idleCloser);
  clearTimeout(deadline);
}
