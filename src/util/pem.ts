/**
 * CA files given to rpcload (`--ca`, a profile's `http.ca`) must hold PEM certificates: anything
 * else would be accepted by the TLS layer only to fail, or be silently ignored, on the first
 * handshake — long after the run started.
 */
import { X509Certificate } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;

/** Why `text` is not a bundle of PEM certificates (one line), or null when every block parses. */
export function pemCertificateProblem(text: string): string | null {
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return 'not a PEM certificate (expected a "-----BEGIN CERTIFICATE-----" block)';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${i + 1} of ${blocks.length} is not a valid PEM certificate`;
    }
  }
  return null;
}
