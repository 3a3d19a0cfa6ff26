/**
 * Secrets (client secrets, signing secrets, tokens, Authorization values, private keys and their
 * passphrases, client assertions) must never reach result files, logs or the dashboard. One
 * redactor per thread knows every configured secret and every token and assertion made so far
 * (the token request registers them), and scrubs them, in their raw and their
 * URL-encoded spelling, from text at the boundaries: where server text becomes an outcome key or
 * a sanitized excerpt, and where outputs are written. `redactSecrets` deep-copies a JSON-like
 * value, scrubbing keys and values and replacing values under secret-ish keys.
 */
export const REDACTED = '[redacted]';

/**
 * Keys whose string values are secrets: those that *end* in secret, token, password, private key,
 * passphrase, assertion … — so `clientSecret`, `signingSecret`, `accessToken`, `privateKey`,
 * `client_assertion` and `authorization` are redacted while settings that merely start with such a
 * word (`tokenMethod`, `tokenResponse`, `secretsFile`, `privateKeyPattern`) are kept. Numbers (e.g.
 * a `tokens` count) are never secrets.
 */
const SECRET_KEY =
  /(secret|password|passwd|passphrase|token|authorization|credential|assertion|api[-_]?key|private[-_]?key)s?$/i;

/** Whether values under this key are secrets (by the rule above). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Shorter strings are too likely to occur by chance ("abc" in every word) to be scrubbed as secrets. */
const MIN_SECRET_LENGTH = 4;

/** A credential is token68 not continued by `=…` or `"`: so `Bearer realm="x"` (a challenge's parameters) stays. */
const CREDENTIAL = /(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*(?![A-Za-z0-9._~+/="-])/g;

/** The secrets this thread knows, longest first (so a secret containing another is scrubbed whole). */
class SecretRegistry {
  private readonly known = new Set<string>();
  private ordered: readonly string[] = [];
  /** Bumped on every new secret, so callers may cache scrubbed text until it changes. */
  generation = 0;

  register(secret: string): void {
    for (const spelling of new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ v: secret }).toString().slice(2),
    ])) {
      if (spelling.length < MIN_SECRET_LENGTH || this.known.has(spelling)) continue;
      this.known.add(spelling);
      this.ordered = [...this.known].sort((a, b) => b.length - a.length);
      this.generation++;
    }
  }

  list(): readonly string[] {
    return this.ordered;
  }
}

const registry = new SecretRegistry();

/** Make a secret (a configured client secret, an issued token) known to every later redaction in this thread. */
export function registerSecret(secret: string): void {
  registry.register(secret);
}

/** Changes whenever a secret is registered: text scrubbed at one generation stays clean until it changes. */
export function secretsGeneration(): number {
  return registry.generation;
}

/** `text` with every known secret (and `extra` ones) and every Bearer/Basic credential replaced by [redacted]. */
export function redactText(text: string, extra: readonly string[] = []): string {
  let out = text;
  for (const secret of extra)
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const secret of registry.list()) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out.includes('Bearer') || out.includes('Basic') ? out.replace(CREDENTIAL, `$1 ${REDACTED}`) : out;
}

export function redactSecrets<T>(value: T, knownSecrets: readonly string[] = []): T {
  const extra = [...knownSecrets].sort((a, b) => b.length - a.length);
  const walk = (node: unknown, key: string | undefined): unknown => {
    if (key !== undefined && typeof node === 'string' && SECRET_KEY.test(key)) return REDACTED;
    if (typeof node === 'string') return redactText(node, extra);
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      // Keys are output too (a server echoing a token as an error code makes it an outcome key).
      for (const [k, v] of Object.entries(node)) out[redactText(k, extra)] = walk(v, k);
      return out;
    }
    return node;
  };
  return walk(value, undefined) as T;
}
