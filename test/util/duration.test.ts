import { describe, expect, it } from 'vitest';
import { formatDurationMs, parseDurationMs } from '../../src/util/duration.ts';

describe('parseDurationMs', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['1m30s', 90_000],
    ['2h', 7_200_000],
    ['1.5s', 1500],
    ['10', 10_000], // a bare number is seconds, like Retry-After
    [3, 3000],
  ])('%j → %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['', '10 parsecs', 's', '-1s', '1x', 'ms10'])('rejects %j', (text) =>
    expect(parseDurationMs(text)).toBeUndefined(),
  );
});

describe('formatDurationMs', () => {
  it.each([
    [950, '950ms'],
    [12_500, '12.5s'],
    [185_000, '3m05s'],
    [3_720_000, '1h02m'],
  ])('%d ms → %s', (ms, text) => expect(formatDurationMs(ms)).toBe(text));
});
