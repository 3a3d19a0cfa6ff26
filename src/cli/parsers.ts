/** Flag value parsers shared by every command; each throws commander's InvalidArgumentError (exit 2). */
import { InvalidArgumentError } from 'commander';
import { readCa } from '../profile/profile-files.ts';
import type { RateOverride, StageOverride } from '../profile/resolve-phases.ts';
import { RpcloadError } from '../errors.ts';
import { targetUrlProblem } from '../profile/target-url.ts';
import { MAX_DURATION_MS, MAX_DURATION_TEXT, parseDurationMs } from '../util/duration.ts';

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

/** Duration flag ("500ms", "10s", "1m") → milliseconds, at most a week. */
export function durationMs(value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined) throw new InvalidArgumentError(`expected a duration like 500ms, 10s or 1m30s, found ${JSON.stringify(value)}`);
  if (ms > MAX_DURATION_MS)
    throw new InvalidArgumentError(`expected a duration of at most ${MAX_DURATION_TEXT}, found ${JSON.stringify(value)}`);
  return ms;
}

/**
 * `--target URL`. Refused in rpcload's own one line, not commander's usage message: that one
 * would echo the value as given — a password in it, or CR/LF that break the line.
 */
export function httpUrl(value: string): string {
  const problem = targetUrlProblem(value);
  if (problem !== null) throw new RpcloadError('bad_flag', `--target: ${problem}`);
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

/** `--rate R` (constant) or `--rate FROM:TO` (a linear ramp over the phase). */
export function rateSpec(value: string): RateOverride {
  const parts = value.split(':');
  const numbers = parts.map(Number);
  const valid = numbers.every((n, i) => parts[i] !== '' && Number.isFinite(n) && n >= 0) && Math.max(...numbers) > 0;
  if (!valid || parts.length > 2)
    throw new InvalidArgumentError(
      `expected a positive rate like 50, or FROM:TO like 10:200 (a linear ramp), found ${JSON.stringify(value)}`,
    );
  return numbers.length === 1 ? numbers[0]! : { from: numbers[0]!, to: numbers[1]! };
}

/** `--stages 30s:50,2m:50,30s:0`: each stage ramps from the previous rate (0 first) to its own over its duration. */
export function stagesSpec(value: string): StageOverride[] {
  return value.split(',').map((stage) => {
    const [durationText = '', rateText = '', extra] = stage.trim().split(':');
    const ms = parseDurationMs(durationText);
    const rate = Number(rateText);
    if (extra !== undefined || ms === undefined || ms <= 0 || ms > MAX_DURATION_MS || rateText === '' || !Number.isFinite(rate) || rate < 0)
      throw new InvalidArgumentError(`expected DURATION:RATE[,DURATION:RATE…] like 30s:50,2m:50,30s:0, found ${JSON.stringify(stage)}`);
    return { durationMs: ms, toPerS: rate };
  });
}

/** `--ca FILE`: the PEM text of an extra CA certificate to trust (one reader for run and verify). */
export function caFile(path: string): string {
  const read = readCa(process.cwd(), path);
  if (!read.ok) throw new InvalidArgumentError(`expected a readable PEM certificate file, found ${read.reason}`);
  return read.value;
}
