/**
 * WWW-Authenticate parsing (RFC 9110 §11.6.1 challenge syntax, as used by RFC 6750 §3):
 * `Bearer realm="example", error="invalid_token", error_description="…"`. Handles several
 * challenges in one header or across repeated headers, quoted strings with escapes, and token68.
 */
export interface Challenge {
  /** Auth scheme, lower-cased (e.g. "bearer"). */
  readonly scheme: string;
  /** auth-params, keys lower-cased, values unquoted. */
  readonly params: Readonly<Record<string, string>>;
  readonly token68: string | null;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*/;

class Cursor {
  position = 0;
  constructor(readonly text: string) {}
  skipSpaces(): void {
    while (this.position < this.text.length && (this.text[this.position] === ' ' || this.text[this.position] === '\t'))
      this.position++;
  }
  match(pattern: RegExp): string | null {
    const found = pattern.exec(this.text.slice(this.position));
    if (!found) return null;
    this.position += found[0].length;
    return found[0];
  }
  peek(): string | undefined {
    return this.text[this.position];
  }
  quoted(): string | null {
    if (this.peek() !== '"') return null;
    let out = '';
    for (this.position++; this.position < this.text.length; this.position++) {
      const ch = this.text[this.position]!;
      if (ch === '\\') out += this.text[++this.position] ?? '';
      else if (ch === '"') {
        this.position++;
        return out;
      } else out += ch;
    }
    return out; // unterminated: keep what was there rather than failing the whole header
  }
}

/**
 * Try to read `name = value` at the cursor; restores the position when it is not a param. A param
 * value is never empty, so `abc=` or `abc==` is token68 with padding, not a param.
 */
function readParam(cursor: Cursor): [string, string] | null {
  const start = cursor.position;
  const name = cursor.match(TOKEN);
  cursor.skipSpaces();
  if (name !== null && cursor.peek() === '=') {
    cursor.position++;
    cursor.skipSpaces();
    const value = cursor.quoted() ?? cursor.match(TOKEN);
    if (value !== null) return [name.toLowerCase(), value];
  }
  cursor.position = start;
  return null;
}

/** An own property even for names like `__proto__`, which plain assignment would swallow (it sets the prototype). */
function setParam(params: Record<string, string>, [name, value]: [string, string]): void {
  Object.defineProperty(params, name, { value, enumerable: true, writable: true, configurable: true });
}

export function parseWwwAuthenticate(header: string | string[] | undefined): Challenge[] {
  if (header === undefined) return [];
  const cursor = new Cursor(Array.isArray(header) ? header.join(', ') : header);
  const challenges: Challenge[] = [];
  while (cursor.position < cursor.text.length) {
    cursor.skipSpaces();
    if (cursor.peek() === ',') {
      cursor.position++;
      continue;
    }
    const scheme = cursor.match(TOKEN);
    if (scheme === null) break;
    cursor.skipSpaces();
    const params: Record<string, string> = {};
    let token68: string | null = null;
    const param = readParam(cursor);
    if (param) setParam(params, param);
    else if (cursor.peek() !== ',' && cursor.position < cursor.text.length) token68 = cursor.match(TOKEN68);
    // Further params of this challenge follow commas; a bare token without '=' starts the next challenge.
    for (;;) {
      const save = cursor.position;
      cursor.skipSpaces();
      if (cursor.peek() !== ',') break;
      cursor.position++;
      cursor.skipSpaces();
      const next = readParam(cursor);
      if (!next) {
        cursor.position = save;
        break;
      }
      setParam(params, next);
    }
    challenges.push({ scheme: scheme.toLowerCase(), params, token68 });
  }
  return challenges;
}
