/**
 * Secrets (client secrets, tokens, Authorization values) must never reach result files, logs or
 * the dashboard. `redactSecrets` deep-copies a JSON-like value, replacing values under secret-ish
 * keys and any occurrence of a known secret string.
 */
export const REDACTED = '[redacted]';

/**
 * Keys whose string values are secrets: those that *end* in secret, token, password, … — so
 * `clientSecret`, `accessToken` and `authorization` are redacted while settings that merely start
 * with such a word (`tokenMethod`, `tokenResponse`, `secretsFile`) are kept. Numbers (e.g. a
 * `tokens` count) are never secrets.
 */
const SECRET_KEY = /(secret|password|passwd|token|authorization|credential|api[-_]?key)s?$/i;

export function redactSecrets<T>(value: T, knownSecrets: readonly string[] = []): T {
  const secrets = knownSecrets.filter((s) => s.length >= 4);
  const scrubString = (text: string): string => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // A credential is token68 not continued by `=…` or `"`: so `Bearer realm="x"` (a challenge's
    // parameters, useful evidence) stays, while `Bearer abc.def` and `Basic dXNlcjpw==` go.
    return out.replace(/(Bearer|Basic)\s+[A-Za-z0-9._~+/-]+=*(?![A-Za-z0-9._~+/="-])/g, `$1 ${REDACTED}`);
  };
  const walk = (node: unknown, key: string | undefined): unknown => {
    if (key !== undefined && typeof node === 'string' && SECRET_KEY.test(key)) return REDACTED;
    if (typeof node === 'string') return scrubString(node);
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) out[k] = walk(v, k);
      return out;
    }
    return node;
  };
  return walk(value, undefined) as T;
}
