import { describe, expect, it } from 'vitest';
import { clampDelayMs, MAX_TIMER_DELAY_MS, safeDelay, safeTimeout } from '../../src/util/timers.ts';

describe('clampDelayMs', () => {
  it.each([
    [1500, 1500],
    [0, 0],
    [-5, 0],
    [Number.NaN, 0],
    [2 ** 31, MAX_TIMER_DELAY_MS], // Node would fire this after 1 ms
    [999_999_999_000, MAX_TIMER_DELAY_MS],
    [Number.POSITIVE_INFINITY, MAX_TIMER_DELAY_MS],
  ])('%d → %d', (input, expected) => expect(clampDelayMs(input)).toBe(expected));
});

describe('safe timers', () => {
  it('an absurd delay does not fire at once, and raises no TimeoutOverflowWarning', async () => {
    const warnings: string[] = [];
    const listener = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', listener);
    let fired = false;
    const timer = safeTimeout(() => (fired = true), 999_999_999_000);
    const abort = new AbortController();
    const delayed = safeDelay(999_999_999_000, abort.signal).then(
      () => 'resolved',
      () => 'aborted',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    clearTimeout(timer);
    abort.abort();
    expect(await delayed).toBe('aborted');
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', listener);
    expect(fired).toBe(false);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});
