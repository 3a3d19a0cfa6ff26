/**
 * PEM text given to rpcload: CA files (`--ca`, a profile's `http.ca`) must hold PEM certificates —
 * anything else would be accepted by the TLS layer only to fail, or be silently ignored, on the
 * first handshake, long after the run started — and client certificate files may hold the
 * certificate chain and its private key together.
 */
const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----\r?\n[\s\S]*?-----END \1-----/;

/** The certificate blocks of `text`, in order (a chain stays a chain). */
export function certificateBlocks(text: string): string[] {
  return text.match(CERTIFICATE_BLOCK) ?? [];
}

/** The first private key block of `text` (PKCS#8, PKCS#1, SEC1 or encrypted PKCS#8), or null. */
export function privateKeyBlock(text: string): string | null {
  return PRIVATE_KEY_BLOCK.exec(text)?.[0] ?? null;
}

/** Why `text` is not a bundle of PEM certificates (one line), or null when every block parses. */
export function pemCertificateProblem(text: string): string | null {
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) return 'not a PEM certificate (expected a "-----BEGIN CERTIFICATE-----" block)';
  // node:crypto loads at the first certificate checked (~8 ms every CLI start would pay otherwise).
  const { X509Certificate } = process.getBuiltinModule('node:crypto');
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${i + 1} of ${blocks.length} is not a valid PEM certificate`;
    }
  }
  return null;
}
