/**
 * Why an https target turns our connections away when it wants client certificates (mTLS). An
 * HTTP client sees only "other side closed" or a reset; one bare TLS connection that sends a
 * request and watches for the server's alert says which it is: no certificate was presented, or
 * the one presented was refused. Used to turn a failed start (no token) into one clear line.
 */
import { isIP } from 'node:net';
import { tlsOptions, type DispatcherOptions } from './dispatcher.ts';

/** TLS alerts a server sends when it wants a certificate and got none. */
const NO_CERTIFICATE = /ALERT_CERTIFICATE_REQUIRED|ALERT_HANDSHAKE_FAILURE/;
/** Errors a server's refusal of a presented certificate shows up as. */
const REFUSED = /ALERT|ECONNRESET|EPIPE/;
/** TLS 1.3: a server that rejects the certificate may just close the connection after the handshake. */
const CLOSED = 'closed after the handshake';

export const CLIENT_CERTIFICATE_HINT =
  'pass --cert FILE --key FILE (or --pfx FILE), or set http.cert or clients.list[].cert in the profile';

/**
 * One TLS connection to `target` with `options` (the client certificate included) and a plain
 * HTTP/1.1 request on it: the one-line reason when the server refuses it over its client
 * certificate, or null when it answers (or fails for a reason that is not about certificates).
 */
export function clientCertificateProblem(
  target: URL,
  options: DispatcherOptions,
  timeoutMs: number,
): Promise<string | null> {
  if (target.protocol !== 'https:') return Promise.resolve(null);
  const identity = options.identity ?? null;
  return new Promise((resolve) => {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    let secured = false;
    let answered = false;
    // node:tls loaded on use: a run against a plain-http target never loads it (~13 ms of start-up).
    const socket = process.getBuiltinModule('node:tls').connect({
      ...tlsOptions(options),
      host,
      port: Number(target.port || 443),
      ALPNProtocols: ['http/1.1'],
      ...(isIP(host) ? {} : { servername: host }),
    });
    const finish = (reason: string | null): void => {
      socket.destroy();
      resolve(reason);
    };
    const refused = (code: string): string | null => {
      if (identity === null)
        return NO_CERTIFICATE.test(code) || code === CLOSED
          ? `the server requires a client certificate (mTLS) and none was presented (${code}): ${CLIENT_CERTIFICATE_HINT}`
          : null;
      return REFUSED.test(code) || code === CLOSED
        ? `the server refused the client certificate ${identity.source} (${code}): is it issued by a CA the server trusts, for client authentication?`
        : null;
    };
    socket.setTimeout(timeoutMs, () => finish(null));
    socket.once('secureConnect', () => {
      secured = true;
      socket.write(`HEAD / HTTP/1.1\r\nhost: ${target.host}\r\nconnection: close\r\n\r\n`);
    });
    socket.once('data', () => {
      answered = true;
      finish(null);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => finish(refused(err.code ?? 'unknown')));
    socket.once('close', () => finish(answered || !secured ? null : refused(CLOSED)));
  });
}
