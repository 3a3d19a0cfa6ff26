/** Flag value parsers shared by every command; each throws commander's InvalidArgumentError (exit 2). */
import { InvalidArgumentError } from 'commander';
import { parseDurationMs } from '../util/duration.ts';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError(`expected a positive integer, found ${JSON.stringify(value)}`);
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, found ${JSON.stringify(value)}`);
  return n;
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a positive number, found ${JSON.stringify(value)}`);
  return n;
}

export function fraction(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`expected a number between 0 and 1, found ${JSON.stringify(value)}`);
  return n;
}

/** Duration flag ("500ms", "10s", "1m") → milliseconds. */
export function durationMs(value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined) throw new InvalidArgumentError(`expected a duration like 500ms, 10s or 1m30s, found ${JSON.stringify(value)}`);
  return ms;
}

export function httpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError(`expected an http:// or https:// URL, found ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError(`expected an http:// or https:// URL, found ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

/** One of a fixed set of words. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value: string) => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(', ')}, found ${JSON.stringify(value)}`);
    }
    return value as T;
  };
}

/** Accumulator for repeatable flags: `--x a --x b` → ['a', 'b']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
