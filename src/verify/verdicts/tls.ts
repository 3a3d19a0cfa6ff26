/** `tls` (https targets): TLS ≥ 1.2 negotiated by default, a TLS 1.1-only handshake refused. */
import { fail, pass, skip, type Verdict } from '../verdict.ts';

export type Handshake =
  /** `alpn`: the application protocol the server chose from the h2 and http/1.1 offered (null: it chose none). */
  | { readonly result: 'accepted'; readonly protocol: string; readonly cipher: string; readonly alpn?: string | null }
  /** The server refused (an alert, a reset, a version we did not offer). */
  | { readonly result: 'refused'; readonly code: string }
  /** Our own TLS library would not even send the ClientHello (TLS 1.1 compiled out or forbidden). */
  | { readonly result: 'cannot-offer'; readonly code: string }
  | { readonly result: 'error'; readonly code: string };

export interface TlsObservation {
  readonly normal: Handshake;
  readonly tls11Only: Handshake;
}

const MODERN = new Set(['TLSv1.2', 'TLSv1.3']);

export function judgeTls(obs: TlsObservation): Verdict {
  const { normal, tls11Only } = obs;
  const evidence = { defaultHandshake: normal, tls11OnlyHandshake: tls11Only };
  if (normal.result !== 'accepted')
    return skip('target_broken', `no TLS handshake with the default settings (${normal.code})`, evidence);
  if (!MODERN.has(normal.protocol))
    return fail(`negotiated ${normal.protocol} (${normal.cipher}); the conventions require TLS 1.2 or later`, evidence);
  const alpn = normal.alpn === undefined ? '' : `, ALPN ${normal.alpn ?? 'none (no protocol chosen)'}`;
  const negotiated = `negotiated ${normal.protocol} (${normal.cipher}${alpn})`;
  switch (tls11Only.result) {
    case 'accepted':
      return fail(
        `${negotiated}, but a TLS 1.1-only handshake was accepted too (${tls11Only.protocol}, ${tls11Only.cipher})`,
        evidence,
      );
    case 'refused':
      return pass(`${negotiated}; a TLS 1.1-only handshake was refused by the server (${tls11Only.code})`, evidence);
    case 'cannot-offer':
      return skip(
        'not_applicable',
        `${negotiated}; TLS 1.1 refusal not tested: this Node.js/OpenSSL cannot offer TLS 1.1 even at SECLEVEL=0 (${tls11Only.code})`,
        evidence,
      );
    case 'error':
      return skip(
        'inconclusive',
        `${negotiated}; the TLS 1.1-only handshake ended inconclusively (${tls11Only.code})`,
        evidence,
      );
  }
}
