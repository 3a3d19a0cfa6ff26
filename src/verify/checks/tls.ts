/**
 * The `tls` check's procedure: two bare TLS handshakes with an https target, one with default
 * settings (offering h2 and http/1.1 in ALPN, and the client certificate when there is one) and
 * one TLS 1.1 only.
 */
import { isIP } from 'node:net';
import { connect, type ConnectionOptions } from 'node:tls';
import { tlsOptions } from '../../api/dispatcher.ts';
import type { CheckDefinition } from '../check.ts';
import { judgeTls, type Handshake } from '../verdicts/tls.ts';

/** Errors raised by our own TLS library before anything reaches the server. */
const CANNOT_OFFER = new Set([
  'ERR_SSL_NO_PROTOCOLS_AVAILABLE',
  'ERR_SSL_NO_CIPHERS_AVAILABLE',
  'ERR_SSL_NO_CIPHER_MATCH',
  'ERR_TLS_INVALID_PROTOCOL_VERSION',
]);
/** Errors that mean the handshake never got an answer either way. */
const INCONCLUSIVE = new Set(['ETIMEDOUT', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENOTFOUND']);

/** One TLS handshake with the target (no HTTP), resolved with what was negotiated or why not. */
function handshake(url: URL, options: ConnectionOptions, timeoutMs: number): Promise<Handshake> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = connect({
      host,
      port: Number(url.port || 443),
      ...(isIP(host) ? {} : { servername: host }),
      ...options,
    });
    const finish = (result: Handshake): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => finish({ result: 'error', code: 'ETIMEDOUT' }));
    socket.once('secureConnect', () =>
      finish({
        result: 'accepted',
        protocol: socket.getProtocol() ?? 'unknown',
        cipher: socket.getCipher().name,
        alpn: typeof socket.alpnProtocol === 'string' ? socket.alpnProtocol : null,
      }),
    );
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const code = err.code ?? err.message.split('\n')[0] ?? 'unknown';
      finish({ result: CANNOT_OFFER.has(code) ? 'cannot-offer' : INCONCLUSIVE.has(code) ? 'error' : 'refused', code });
    });
  });
}

export const tls: CheckDefinition = {
  id: 'tls',
  plan: (config) =>
    config.target.startsWith('https:')
      ? { needs: [], countsQuota: false, estimateMs: 200 }
      : 'plain http target: TLS applies to https targets only',
  async run(check) {
    const { target, ca, insecure, identity, clients, requestTimeoutMs } = check.config;
    const url = new URL(target);
    // The client certificate a request as the first client would present (an mTLS server wants one).
    const trust = tlsOptions({ ca, insecure, identity: clients[0]?.tls ?? identity });
    const normal = await handshake(url, { ...trust, ALPNProtocols: ['h2', 'http/1.1'] }, requestTimeoutMs);
    // OpenSSL 3 refuses TLS 1.1 at its default security level before asking the server: level 0 lets us ask.
    const tls11Only = await handshake(
      url,
      { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0', rejectUnauthorized: false },
      requestTimeoutMs,
    );
    return judgeTls({ normal, tls11Only });
  },
};
