import { describe, expect, it } from 'vitest';
import { locateJsonError } from '../../src/util/json-error-position.ts';

/** Line and column of the first occurrence of `marker` in `text` (1-based). */
function at(text: string, marker: string): { line: number; column: number } {
  const offset = text.indexOf(marker);
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

describe('locateJsonError', () => {
  it.each([
    ['a missing value', '{\n  "a": 1,\n  "b": }', '}', /expected a JSON value, found "}"/],
    ['a trailing comma', '{\n  "a": [1, 2,]\n}', ']', /trailing commas are not JSON/],
    ['a missing comma', '{"a": 1\n "b": 2}', '"b"', /expected ',' or '}'/],
    ['an unquoted key', '{ a: 1 }', 'a:', /property name in double quotes/],
    ['a single-quoted string', '{"a": \'x\'}', "'x'", /expected a JSON value/],
    ['a raw newline inside a string', '{"a": "line\nbreak"}', '\nbreak', /control characters must be escaped/],
    ['a bad escape', '{"a": "\\q"}', 'q"', /valid escape sequence/],
    ['text after the value', '{"a": 1} trailing', 'trailing', /end of the file/],
    ['NaN', '{"a": NaN}', 'NaN', /expected a JSON value/],
  ])('points at %s', (_, text, marker, reason) => {
    const where = locateJsonError(text);
    expect(where).toMatchObject(at(text, marker));
    expect(where!.reason).toMatch(reason);
    expect(() => void JSON.parse(text)).toThrow(); // really invalid
  });

  it('points past the end of a truncated file', () => {
    const text = '{\n  "a": [1, 2';
    expect(locateJsonError(text)).toEqual({
      line: 2,
      column: text.length - text.lastIndexOf('\n'),
      reason: "expected ',' or ']', found the end of the file",
    });
  });

  it.each([['{}'], ['[1, -2.5e3, "x\\u00e9", true, false, null, {"a": {}}]'], [' \n 42 \n']])(
    'finds nothing wrong in valid JSON %s',
    (text) => {
      expect(locateJsonError(text)).toBeNull();
      expect(() => void JSON.parse(text)).not.toThrow();
    },
  );
});
