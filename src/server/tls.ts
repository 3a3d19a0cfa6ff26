/**
 * TLS for the reference server: the certificate to serve (given or self-signed) and the
 * protocol versions accepted.
 */
import type { SecureContextOptions, TlsOptions } from 'node:tls';
import { RpcloadError } from '../errors.ts';
import type { ServerOptions } from './options.ts';

/** A PEM certificate and its private key. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

/** A fresh self-signed certificate for 127.0.0.1, ::1 and localhost, valid for a week. */
export async function selfSignedMaterial(): Promise<TlsMaterial> {
  // Loaded here, not at the top: its ASN.1 libraries cost every CLI start ~0.1 s, and most never serve TLS.
  const { generate } = await import('selfsigned');
  const notBeforeDate = new Date(Date.now() - 60_000); // tolerate a little clock skew
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec', // P-256: generated in milliseconds, unlike a 2048-bit RSA key
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 7 * 24 * 3_600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}

/** The certificate to serve, or undefined for plain HTTP. */
export async function resolveTlsMaterial(tls: ServerOptions['tls']): Promise<TlsMaterial | undefined> {
  if (tls === undefined || tls === false) return undefined;
  if (tls === true) return selfSignedMaterial();
  if (!tls.cert.includes('-----BEGIN') || !tls.key.includes('-----BEGIN')) {
    throw new RpcloadError('bad_server_option', 'tls.cert and tls.key must be PEM text (-----BEGIN …)');
  }
  return tls;
}

/**
 * Options for https.createServer (and http2.createSecureServer): TLS 1.2 or later, as the
 * conventions require. The `tls-legacy` fault also accepts TLS 1.0/1.1, which OpenSSL 3 only
 * negotiates at security level 0. With `clientCa`, every connection must present a client
 * certificate that chains to it (mTLS); the handshake fails otherwise.
 */
export function tlsServerOptions(
  material: TlsMaterial,
  legacy: boolean,
  clientCa: string | null = null,
): TlsOptions & SecureContextOptions {
  const versions = legacy
    ? { minVersion: 'TLSv1' as const, ciphers: 'DEFAULT@SECLEVEL=0' }
    : { minVersion: 'TLSv1.2' as const };
  const mutual = clientCa === null ? {} : { requestCert: true, rejectUnauthorized: true, ca: clientCa };
  return { cert: material.cert, key: material.key, ...versions, ...mutual };
}
