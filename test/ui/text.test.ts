import { groupThousands } from '../../src/util/number-format.ts';
import { describe, expect, it } from 'vitest';
import { cellText, padEnd, padStart, truncate } from '../../src/ui/text/cell-text.ts';
import {
  formatCount,
  formatMs,
  formatRate,
  formatSeconds,
  formatShare,
  niceCeiling,
  progressBar,
} from '../../src/ui/text/format.ts';
import { escapeTags, fitLine, frameToTags, lineText, lineToTags, seg, wrapLine } from '../../src/ui/text/styled.ts';

describe('number formatting', () => {
  it.each([
    // about three significant digits, no unit
    [0.24, '0.240'],
    [7.661, '7.66'],
    [23.94, '23.9'],
    [108.4, '108'],
    [12_345.6, '12346'],
    [Number.NaN, '–'],
  ])('formatMs(%d) = %s', (ms, text) => expect(formatMs(ms)).toBe(text));

  it.each([
    [0, '0'],
    [1234, '1,234'],
    [999_999, '999,999'],
    [1_234_567, '1.23M'],
    [12_345_678, '12.3M'],
    [2_500_000_000, '2.50G'],
  ])('formatCount(%d) = %s', (n, text) => expect(formatCount(n)).toBe(text));

  // As toLocaleString('en-US') of the rounded number, which it replaces (ICU's first call is ~25 ms).
  it.each([0, 7, 999, 1000, 12_345.6, 1_234_567, 98_765_432_101, -1234, -999_999.5])('groupThousands(%d)', (n) =>
    expect(groupThousands(n)).toBe(Math.round(n).toLocaleString('en-US')),
  );
  it('groupThousands(-0.4) = 0, not -0', () => expect(groupThousands(-0.4)).toBe('0'));

  it.each([
    [0, '0.0'],
    [57.49, '57.5'],
    [2000, '2,000'],
  ])('formatRate(%d) = %s', (n, text) => expect(formatRate(n)).toBe(text));

  it.each([
    [1, 4, '25.0%'],
    [0, 0, '0.0%'], // nothing yet is 0 %, not NaN
  ])('formatShare(%d, %d) = %s', (part, whole, text) => expect(formatShare(part, whole)).toBe(text));

  it('formats countdowns in seconds, never negative', () => {
    expect(formatSeconds(4200)).toBe('4.2s');
    expect(formatSeconds(-5)).toBe('0.0s');
  });

  it.each([
    [0, 10, '░░░░░░░░░░'],
    [0.5, 10, '█████░░░░░'],
    [0.55, 10, '█████▌░░░░'], // eighths of a cell
    [1, 10, '██████████'],
    [2, 4, '████'], // clamped
    [Number.NaN, 3, '░░░'],
    [0.5, 0, ''],
  ])('progressBar(%d, %d) = %s', (fraction, width, bar) => {
    expect(progressBar(fraction, width)).toBe(bar);
    expect(progressBar(fraction, width)).toHaveLength(width);
  });

  it.each([
    [0, 1],
    [0.3, 0.3],
    [0.31, 0.4],
    [7, 8],
    [12, 15],
    [21, 25],
    [250, 250],
    [251, 300],
    [540, 600],
    [801, 1000],
  ])('niceCeiling(%d) = %d', (value, nice) => expect(niceCeiling(value)).toBe(nice));
});

describe('cell text', () => {
  it.each([
    // escape sequences and control characters never reach the screen
    ['\u001b[2J\u001b[Hwiped', 'wiped'],
    ['\u001b]0;pwned\u0007title', 'title'],
    ['line\nbreak\ttab', 'line break tab'],
    ['bell\u0007', 'bell '],
    ['\u009b31mC1 CSI', 'C1 CSI'],
    // characters that are not exactly one cell wide become ?
    ['日本', '??'],
    ['emoji 😀!', 'emoji ?!'],
    ['e\u0301', 'e?'],
    ['{red-fg}braces{/red-fg}', '{red-fg}braces{/red-fg}'], // kept here, escaped as markup later
  ])('cellText(%j) = %j', (input, output) => expect(cellText(input)).toBe(output));

  it('caps the length', () => expect(cellText('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`));

  it.each([
    ['abcdef', 4, 'abc…'],
    ['abc', 4, 'abc'],
    ['abc', 0, ''],
  ])('truncate(%j, %d) = %j', (text, width, out) => expect(truncate(text, width)).toBe(out));

  it('pads to exact widths', () => {
    expect(padEnd('ab', 4)).toBe('ab  ');
    expect(padStart('ab', 4)).toBe('  ab');
    expect(padStart('abcdef', 4)).toBe('abc…');
  });
});

describe('styled lines', () => {
  it('escapes braces so server text cannot inject blessed tags', () => {
    expect(escapeTags('{bold}x{/bold}')).toBe('{open}bold{close}x{open}/bold{close}');
    expect(lineToTags([seg('{red-fg}', 'bad')], true)).toBe('{red-fg}{open}red-fg{close}{/red-fg}');
  });

  it.each([
    // colour on: semantic styles become colour tags
    [true, '{green-fg}ok{/green-fg} {yellow-fg}429{/yellow-fg} {bold}p99{/bold}'],
    // NO_COLOR: no colour tags at all, attributes such as bold stay
    [false, 'ok 429 {bold}p99{/bold}'],
  ])('colour %s', (colour, tags) => {
    expect(frameToTags([[seg('ok', 'ok'), seg(' '), seg('429', 'warn'), seg(' '), seg('p99', 'strong')]], colour)).toBe(
      tags,
    );
  });

  it.each([
    [[seg('abc', 'ok'), seg('def', 'bad')], 4, 'abc…'],
    [[seg('abc', 'ok'), seg('def', 'bad')], 6, 'abcdef'],
    [[seg('abcdef')], 0, ''],
  ])('fitLine cuts with an ellipsis (%#)', (line, width, text) => expect(lineText(fitLine(line, width))).toBe(text));

  it('wraps at spaces, indents continuations, keeps styles', () => {
    const rows = wrapLine([seg('[1.0s] ', 'dim'), seg('payload.limit FAIL boundary at 50,000 bytes', 'bad')], 24, 7);
    expect(rows.map(lineText)).toEqual(['[1.0s] payload.limit ', '       FAIL boundary at ', '       50,000 bytes']);
    expect(rows.every((row) => lineText(row).length <= 24)).toBe(true);
    expect(rows[1]!.find((s) => s.text.includes('FAIL'))?.style).toBe('bad');
    expect(wrapLine([], 10)).toEqual([[]]);
  });
});
