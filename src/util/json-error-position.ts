/**
 * Where a JSON text stops being JSON. Node's JSON.parse messages carry a position on some
 * versions and not on others (Node 20: `Unexpected token '}', "…" is not valid JSON`), so a
 * small scanner of the JSON grammar finds the first offending character itself.
 */
export interface JsonErrorPosition {
  /** 1-based, in UTF-16 code units like editors' columns for most text. */
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) this.fail('expected the end of the file after the JSON value');
  }

  private fail(expected: string): never {
    const c = this.text[this.i];
    throw new JsonSyntaxError(
      this.i,
      `${expected}, found ${c === undefined ? 'the end of the file' : JSON.stringify(c)}`,
    );
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  private value(): void {
    this.space();
    const c = this.text[this.i];
    if (c === '{') return this.container('}', () => this.member());
    if (c === '[') return this.container(']', () => this.value());
    if (c === '"') return this.string();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = this.i;
    if (NUMBER.test(this.text)) {
      this.i = NUMBER.lastIndex;
      return;
    }
    this.fail('expected a JSON value');
  }

  private member(): void {
    this.space();
    if (this.text[this.i] !== '"') this.fail('expected a property name in double quotes');
    this.string();
    this.space();
    if (this.text[this.i] !== ':') this.fail("expected ':' after the property name");
    this.i++;
    this.value();
  }

  private container(close: string, item: () => void): void {
    this.i++;
    this.space();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      item();
      this.space();
      if (this.text[this.i] === close) {
        this.i++;
        return;
      }
      if (this.text[this.i] !== ',') this.fail(`expected ',' or '${close}'`);
      this.i++;
      this.space();
      if (this.text[this.i] === close) this.fail(`expected a value after ',' (trailing commas are not JSON)`);
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined) this.fail("expected the closing '\"' of the string");
      if (c === '"') {
        this.i++;
        return;
      }
      if (c < ' ') this.fail('expected an escaped character in the string (control characters must be escaped)');
      if (c === '\\') {
        this.i++;
        const e = this.text[this.i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 1, this.i + 5)))
            this.fail('expected 4 hex digits after \\u');
          this.i += 4;
        } else if (e === undefined || !ESCAPES.has(e)) this.fail('expected a valid escape sequence');
      }
      this.i++;
    }
  }
}

/** Line, column and reason of the first syntax error, or null when the text is valid JSON. */
export function locateJsonError(text: string): JsonErrorPosition | null {
  try {
    new Scanner(text).document();
    return null;
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    const before = text.slice(0, err.offset);
    const line = before.split('\n').length;
    return { line, column: err.offset - before.lastIndexOf('\n'), reason: err.reason };
  }
}
