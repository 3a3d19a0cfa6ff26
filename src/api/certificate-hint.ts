/**
 * What to say when a TLS handshake refused the server's certificate. Trusting it (`--ca`,
 * `--insecure`) is the fix for a certificate rpcload does not know — self-signed, a private CA —
 * but not for one that has expired or was issued for another host: for those the hint says what is
 * wrong, with the date or the names, read from the certificate itself by a second handshake that
 * does not verify it and sends nothing. Only ever run after a refusal.
 */
import { isIP } from 'node:net';
import type { PeerCertificate } from 'node:tls';

/** Transport errors that mean "the certificate was refused". */
const REFUSED_CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/;
const TRUST_HINT =
  ' (the server certificate is not trusted: pass --ca FILE or --insecure, or set http.ca in the profile)';
/** How long the second handshake may take before the hint goes without the certificate's details. */
const PROBE_TIMEOUT_MS = 3000;

/** The certificate `url`'s server presents, unverified; null when none could be read in time. */
function peerCertificate(url: URL): Promise<PeerCertificate | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    // node:tls loaded on use: a run against a plain-http target never loads it (~13 ms of start-up).
    const socket = process.getBuiltinModule('node:tls').connect({
      host,
      port: Number(url.port || 443),
      ...(isIP(host) === 0 ? { servername: host } : {}),
      rejectUnauthorized: false,
    });
    const done = (certificate: PeerCertificate | null): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(certificate);
    };
    const timer = setTimeout(() => done(null), PROBE_TIMEOUT_MS);
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerCertificate();
      done(certificate !== null && typeof certificate.valid_to === 'string' ? certificate : null);
    });
    socket.once('error', () => done(null));
  });
}

/** `Jan  1 00:00:00 2025 GMT` → `2025-01-01T00:00:00Z` (the text as given when it is no date). */
function isoDate(text: string): string {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}

/** The host names and addresses a certificate is for: its subjectAltName entries, else its common name. */
function certificateNames(certificate: PeerCertificate): string {
  const alt = (certificate.subjectaltname ?? '')
    .split(',')
    .map((entry) => entry.trim().replace(/^(DNS|IP Address):/, ''))
    .filter((name) => name !== '');
  const names = alt.length > 0 ? alt : [certificate.subject?.CN].flat().filter((name) => typeof name === 'string');
  return names.length > 0 ? names.slice(0, 5).join(', ') : 'no host name';
}

/**
 * The hint to add after a transport outcome of a request to `baseUrl` ('' when the outcome is not
 * about the certificate): the expiry date, the validity start or the names the certificate is for
 * when that is the problem, else how to trust it.
 */
export async function certificateHint(baseUrl: string, outcome: string): Promise<string> {
  if (!outcome.startsWith('transport:') || !REFUSED_CERTIFICATE.test(outcome)) return '';
  const code = outcome.slice('transport:'.length);
  const specific =
    code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID' || code === 'ERR_TLS_CERT_ALTNAME_INVALID';
  if (!specific) return TRUST_HINT;
  const url = new URL(baseUrl);
  const certificate = await peerCertificate(url);
  if (code === 'CERT_HAS_EXPIRED')
    return ` (the server certificate expired${certificate === null ? '' : ` on ${isoDate(certificate.valid_to)}`}: it must be renewed; --ca or --insecure would only hide that)`;
  if (code === 'CERT_NOT_YET_VALID')
    return ` (the server certificate is not valid yet${certificate === null ? '' : `, not before ${isoDate(certificate.valid_from)}`}: check the server's certificate or either machine's clock)`;
  return ` (the server certificate is for ${certificate === null ? 'another host' : certificateNames(certificate)}, not ${url.hostname}: use a target URL with a name it was issued for)`;
}
