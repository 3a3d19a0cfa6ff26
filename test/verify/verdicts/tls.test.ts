import { describe, expect, it } from 'vitest';
import { judgeTls, type Handshake } from '../../../src/verify/verdicts/tls.ts';

const modern: Handshake = { result: 'accepted', protocol: 'TLSv1.3', cipher: 'TLS_AES_256_GCM_SHA384' };

describe('judgeTls', () => {
  it.each([
    // TLS 1.3, TLS 1.1 refused by an alert
    [
      'conformant',
      modern,
      { result: 'refused', code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' },
      'pass',
      /negotiated TLSv1.3 \(TLS_AES_256_GCM_SHA384\); a TLS 1.1-only handshake was refused by the server/,
    ],
    // TLS 1.1 accepted too
    [
      'legacy accepted',
      modern,
      { result: 'accepted', protocol: 'TLSv1.1', cipher: 'ECDHE-ECDSA-AES256-SHA' },
      'fail',
      /a TLS 1.1-only handshake was accepted too \(TLSv1.1/,
    ],
    // we cannot even offer TLS 1.1: not tested, said so
    [
      'cannot offer',
      modern,
      { result: 'cannot-offer', code: 'ERR_SSL_NO_PROTOCOLS_AVAILABLE' },
      'skip',
      /cannot offer TLS 1.1 even at SECLEVEL=0/,
    ],
    // the default handshake negotiated TLS 1.0
    [
      'old default',
      { result: 'accepted', protocol: 'TLSv1', cipher: 'AES128-SHA' },
      { result: 'accepted', protocol: 'TLSv1.1', cipher: 'x' },
      'fail',
      /negotiated TLSv1 .* require TLS 1.2 or later/,
    ],
    // the ALPN result is reported: h2 offered and chosen
    [
      'alpn h2',
      { ...modern, alpn: 'h2' },
      { result: 'refused', code: 'ECONNRESET' },
      'pass',
      /negotiated TLSv1.3 \(TLS_AES_256_GCM_SHA384, ALPN h2\)/,
    ],
    // a server that chooses no protocol from those offered says so
    [
      'alpn none',
      { ...modern, alpn: null },
      { result: 'refused', code: 'ECONNRESET' },
      'pass',
      /ALPN none \(no protocol chosen\)/,
    ],
    // no handshake at all
    [
      'no handshake',
      { result: 'error', code: 'ETIMEDOUT' },
      { result: 'error', code: 'ETIMEDOUT' },
      'skip',
      /no TLS handshake/,
    ],
  ] as const)('%s', (_name, normal, tls11Only, verdict, detail) => {
    const result = judgeTls({ normal, tls11Only });
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });
});
