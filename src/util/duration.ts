/**
 * Human durations ("500ms", "1m30s") for profiles and flags: parsed into
 * milliseconds, and formatted back.
 */
import { RpcloadError } from '../errors.ts';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION_PATTERN = /^(?:(\d+(?:\.\d+)?)(ms|s|m|h))+$/;
const PART_PATTERN = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/**
 * The longest duration a profile or flag may give (a week): beyond it a value is a typo
 * ("99999999h"), not a plan, and would overflow timers.
 */
export const MAX_DURATION_MS = 7 * 24 * 3_600_000;
/** MAX_DURATION_MS, worded for "expected …" messages. */
export const MAX_DURATION_TEXT = '7 days (168h)';

/**
 * Parse a human duration ("500ms", "10s", "1m30s", "2h") into milliseconds.
 * A bare number is read as seconds, the unit the API's Retry-After uses.
 * Returns undefined when the text is not a duration, so callers can report it with context.
 */
export function parseDurationMs(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text * 1000) && text >= 0 ? text * 1000 : undefined;
  const trimmed = text.trim();
  let totalMs = 0;
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) totalMs = Number(trimmed) * 1000;
  else if (!DURATION_PATTERN.test(trimmed)) return undefined;
  else for (const [, amount, unit] of trimmed.matchAll(PART_PATTERN)) totalMs += Number(amount) * UNIT_MS[unit!]!;
  // 400 digits are digits, but no duration: Infinity would pass every later `> 0` check.
  return Number.isFinite(totalMs) ? totalMs : undefined;
}

/** Parse a duration flag or throw a one-line usage error naming the flag. */
export function requireDurationMs(text: string, what: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined) {
    throw new RpcloadError(
      'bad_flag',
      `${what}: expected a duration like 500ms, 10s or 1m30s, found ${JSON.stringify(text)}`,
    );
  }
  return ms;
}

/** Format milliseconds compactly for humans: 950ms, 12.5s, 3m05s, 1h02m. */
export function formatDurationMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const totalS = Math.round(ms / 1000);
  if (totalS < 3600) return `${Math.floor(totalS / 60)}m${String(totalS % 60).padStart(2, '0')}s`;
  const totalM = Math.floor(totalS / 60);
  return `${Math.floor(totalM / 60)}h${String(totalM % 60).padStart(2, '0')}m`;
}
