/** Profile durations in milliseconds, with a bad one recorded as a problem instead of thrown. */
import { MAX_DURATION_MS, MAX_DURATION_TEXT, parseDurationMs } from '../util/duration.ts';
import { expected, type Problem } from './problems.ts';

/**
 * A profile duration in ms, at most MAX_DURATION_MS. A bad one is recorded in `problems` and reads
 * as 0, so resolution can go on and report everything else; a plan is never built from a profile
 * that had problems.
 */
export function durationMs(
  text: string,
  pointer: string,
  problems: Problem[],
  options: { readonly allowZero: boolean },
): number {
  const ms = parseDurationMs(text);
  if (ms === undefined) {
    problems.push(expected(pointer, 'a duration like "500ms", "10s" or "1m30s"', text));
    return 0;
  }
  if (ms === 0 && !options.allowZero) problems.push(expected(pointer, 'a duration greater than 0', text));
  if (ms > MAX_DURATION_MS) {
    problems.push(expected(pointer, `a duration of at most ${MAX_DURATION_TEXT}`, text));
    return 0;
  }
  return ms;
}

export const ALLOW_ZERO = { allowZero: true } as const;
export const POSITIVE = { allowZero: false } as const;
