/** The clients allowed to request tokens, with their secrets compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ClientCredential } from '../options.ts';

/** Compare secrets in constant time (digests first, so lengths leak nothing either). */
function secretsEqual(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Who may request tokens: the registered clients, plus (demo only) any ID with the pattern's
 * prefix presented with the pattern's shared secret.
 */
export class ClientRegistry {
  readonly #secrets: ReadonlyMap<string, string>;
  readonly #patterns: readonly { readonly prefix: string; readonly secret: string }[];

  /** `patterns`: ID prefixes each opened by one shared secret (the demo's two, one given, or none). */
  constructor(
    clients: readonly ClientCredential[],
    patterns: readonly { readonly prefix: string; readonly secret: string }[],
  ) {
    this.#secrets = new Map(clients.map((c) => [c.id, c.secret]));
    this.#patterns = patterns;
  }

  /** True when `secret` is the client's secret. */
  verify(id: string, secret: string): boolean {
    const registered = this.#secrets.get(id);
    if (registered !== undefined) return secretsEqual(secret, registered);
    const pattern = this.#patterns.find((p) => id.length > p.prefix.length && id.startsWith(p.prefix));
    return pattern !== undefined && secretsEqual(secret, pattern.secret);
  }
}
