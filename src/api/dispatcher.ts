/**
 * Client-side HTTP connection settings: TLS connect options built from one set of limits,
 * timeouts, trust settings, client certificate and HTTP version, and the ALPN probe that says which
 * protocol a target negotiates. undici's Agents built from them are in undici-agents.ts.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { buildConnector } from 'undici';

/** The HTTP version asked for: 1.1 only, HTTP/2 required (ALPN h2 over TLS), or whatever the server offers. */
export type HttpVersion = '1.1' | '2' | 'auto';

/**
 * A client certificate (mTLS) as plain data: PEM certificate and key, or a PKCS#12 bundle (base64),
 * with the passphrase of an encrypted key. Secrets: never written anywhere.
 */
export interface ClientTlsIdentity {
  readonly cert?: string;
  readonly key?: string;
  /** PKCS#12 (.pfx/.p12) bundle, base64. */
  readonly pfx?: string;
  readonly passphrase?: string;
  /** Where it came from, for messages (file names only). */
  readonly source: string;
}

/** Connection settings shared by every client-side HTTP user (verify, tokens, the driver's pools). */
export interface DispatcherOptions {
  /** Max connections per origin; null/undefined = unlimited (verify bursts need many at once). */
  readonly connections?: number | null;
  readonly pipelining?: number;
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Extra CA certificate (PEM) to trust for https targets. */
  readonly ca?: string | null;
  /** Skip certificate verification (self-signed test servers). */
  readonly insecure?: boolean;
  /** The client certificate presented to https targets; null = none. */
  readonly identity?: ClientTlsIdentity | null;
  /** '2' and 'auto' offer h2 in ALPN (HTTP/2 over TLS); default '1.1'. */
  readonly httpVersion?: HttpVersion;
}

/** node:tls options for the trust settings and the client certificate: what every TLS connection of rpcload uses. */
export interface TlsOptions {
  ca?: string;
  rejectUnauthorized: boolean;
  cert?: string;
  key?: string;
  pfx?: Buffer;
  passphrase?: string;
}

/** undici's `connect` options: TLS trust, the client certificate, and whether h2 is offered. */
export interface TlsConnectOptions extends TlsOptions {
  timeout: number;
  allowH2: boolean;
}

/** The node:tls options of `options`' trust settings and client certificate. */
export function tlsOptions(options: Pick<DispatcherOptions, 'ca' | 'insecure' | 'identity'>): TlsOptions {
  const identity = options.identity ?? null;
  return {
    ...(options.ca ? { ca: options.ca } : {}),
    rejectUnauthorized: options.insecure !== true,
    ...(identity?.cert === undefined ? {} : { cert: identity.cert }),
    ...(identity?.key === undefined ? {} : { key: identity.key }),
    ...(identity?.pfx === undefined ? {} : { pfx: Buffer.from(identity.pfx, 'base64') }),
    ...(identity?.passphrase === undefined ? {} : { passphrase: identity.passphrase }),
  };
}

/** undici's `connect` options for the trust settings, client certificate and HTTP version. */
export function connectOptions(options: DispatcherOptions): TlsConnectOptions {
  return {
    timeout: options.connectTimeoutMs ?? 10_000,
    ...tlsOptions(options),
    allowH2: (options.httpVersion ?? '1.1') !== '1.1',
  };
}

/** The ALPN id of a protocol: `h2`, or `http/1.1` (also for plain-http connections, which have no ALPN). */
export type NegotiatedProtocol = 'h2' | 'http/1.1';

/** The protocol a connected socket speaks. */
export function socketProtocol(socket: Socket): NegotiatedProtocol {
  return (socket as Partial<TLSSocket>).alpnProtocol === 'h2' ? 'h2' : 'http/1.1';
}

/**
 * Open one connection to `target` with `options` (h2 offered unless httpVersion is 1.1) and say
 * which protocol it negotiated, or why it could not connect (undici's or the system's error code).
 */
export function probeProtocol(
  target: URL,
  options: DispatcherOptions,
): Promise<{ protocol: NegotiatedProtocol } | { error: string }> {
  const connect = buildConnector(connectOptions(options));
  return new Promise((resolve) => {
    connect(
      {
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        host: target.host,
        protocol: target.protocol,
        port: target.port,
      },
      (error, socket) => {
        if (error !== null)
          return resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message.split('\n')[0] ?? 'unknown' });
        const protocol = socketProtocol(socket);
        socket.destroy();
        resolve({ protocol });
      },
    );
  });
}

/**
 * The one-line error for a target that did not negotiate HTTP/2 when it was required, or null when
 * the probe is fine (for '1.1' and 'auto', any protocol is).
 */
export function requiredH2Problem(
  target: string,
  version: HttpVersion,
  probe: { protocol: NegotiatedProtocol } | { error: string },
): string | null {
  if (version !== '2' || !('protocol' in probe) || probe.protocol === 'h2') return null;
  return `${target} does not speak HTTP/2: ALPN negotiated ${probe.protocol} (http.version "2" / --http2 requires h2; "auto" takes what the server offers)`;
}
