/** Starts the reference server (HTTP or HTTPS) in the calling thread, and closes it gracefully. */
import { randomInt } from 'node:crypto';
import { createServer as createHttpServer, STATUS_CODES, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { RpcloadError } from '../errors.ts';
import { createApp } from './app.ts';
import { resolveServerConfig } from './resolved-config.ts';
import type { ServerHandle, ServerOptions } from './options.ts';
import type { StatsRecorder } from './stats.ts';
import { TimerSet } from './timers.ts';
import { resolveTlsMaterial, tlsServerOptions } from './tls.ts';

/** How long close() lets in-flight requests finish before destroying their sockets. */
export const CLOSE_GRACE_MS = 1000;

/**
 * Start the reference server. Resolves once it listens; rejects with an RpcloadError for bad
 * options or an address that cannot be bound (port taken, unknown host).
 */
export async function startServer(options: ServerOptions = {}): Promise<ServerHandle> {
  const config = resolveServerConfig(options, () => randomInt(0, 2 ** 32));
  const tls = await resolveTlsMaterial(config.tls);
  const timers = new TimerSet();
  const app = createApp(config, timers);
  const httpOptions = {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    // Node checks those timeouts on this period (default 30 s, far too coarse for a 10 s timeout).
    connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    // HTTP keep-alive is Node's default (idle connections close after keepAliveTimeout, 5 s).
  };
  const server: Server = tls
    ? createHttpsServer({ ...httpOptions, ...tlsServerOptions(tls, config.faults.has('tls-legacy')) }, app.handle)
    : createHttpServer(httpOptions, app.handle);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, app.stats));

  const port = await listen(server, config.host, config.port);
  const sweeper = setInterval(() => app.sweep(Date.now()), Math.min(60_000, Math.max(1000, config.windowMs))).unref();
  const url = `${tls ? 'https' : 'http'}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    ...(tls ? { certPem: tls.cert } : {}),
    stats: () => app.stats.snapshot(),
    revokeTokens: (clientId) => app.tokens.revoke(clientId),
    close: () => {
      clearInterval(sweeper);
      closing ??= closeGracefully(server, CLOSE_GRACE_MS).finally(() => timers.clear());
      return closing;
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE' ? 'address already in use' : err.code === 'EACCES' ? 'permission denied' : (err.code ?? err.message);
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
  const inResponse = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
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
