import { describe, expect, it } from 'vitest';
import { colourAllowed, colourEnabled, paint } from '../../src/util/terminal-style.ts';

describe('the colour policy', () => {
  it.each([
    // [stream is a TTY, environment, colour?]
    [true, {}, true],
    [false, {}, false], // a pipe or a file: plain text
    [true, { NO_COLOR: '1' }, false], // https://no-color.org
    [true, { NO_COLOR: '' }, true], // set but empty does not count
    [true, { TERM: 'dumb' }, false],
    [false, { FORCE_COLOR: '1' }, true], // CI log viewers render ANSI
    [false, { FORCE_COLOR: '0' }, false],
    [true, { NO_COLOR: '1', FORCE_COLOR: '1' }, false], // NO_COLOR wins
  ] as const)('TTY %s, %j → %s', (isTTY, env, expected) => {
    expect(colourEnabled({ isTTY }, env)).toBe(expected);
  });

  it('allows styles unless NO_COLOR is set to something', () => {
    expect(colourAllowed({})).toBe(true);
    expect(colourAllowed({ NO_COLOR: 'yes' })).toBe(false);
  });
});

describe('paint', () => {
  it('wraps text in the style codes only when enabled', () => {
    expect(paint('ok', 'ok', true)).toBe('\u001b[32mok\u001b[0m');
    expect(paint('bad', ['strong', 'bad'], true)).toBe('\u001b[1;31mbad\u001b[0m');
    expect(paint('plain', 'bad', false)).toBe('plain');
    expect(paint('none', null, true)).toBe('none');
  });
});
