/** Flag value parsers shared by every command; each throws commander's InvalidArgumentError (exit 2). */
import { InvalidArgumentError } from 'commander';
import { readCa } from '../profile/profile-files.ts';
import {
  parseConcurrency,
  parseRate,
  parseStages,
  type ConcurrencyLoad,
  type RateLoad,
  type Stage,
} from '../profile/phase-load.ts';
import { RpcloadError } from '../errors.ts';
import { targetUrlProblem } from '../profile/target-url.ts';
import type { HttpClientName } from '../profile/plan.ts';
import { HTTP_CLIENTS, httpClientNamed } from '../profile/http-clients.ts';
import { MAX_DURATION_MS, MAX_DURATION_TEXT, parseDurationMs } from '../util/duration.ts';

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive integer, found ${JSON.stringify(value)}`);
  return n;
}

export function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`expected a non-negative integer, found ${JSON.stringify(value)}`);
  return n;
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive number, found ${JSON.stringify(value)}`);
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
  if (ms === undefined)
    throw new InvalidArgumentError(`expected a duration like 500ms, 10s or 1m30s, found ${JSON.stringify(value)}`);
  if (ms > MAX_DURATION_MS)
    throw new InvalidArgumentError(
      `expected a duration of at most ${MAX_DURATION_TEXT}, found ${JSON.stringify(value)}`,
    );
  return ms;
}

/**
 * A URL flag's parser (`--target`, `--replica`). Refused in rpcload's own one line, not commander's
 * usage message: that one would echo the value as given — a password in it, or CR/LF that break
 * the line.
 */
function urlFlag(flag: string): (value: string) => string {
  return (value) => {
    const problem = targetUrlProblem(value);
    if (problem !== null) throw new RpcloadError('bad_flag', `${flag}: ${problem}`);
    return value.replace(/\/+$/, '');
  };
}

/** `--target URL`. */
export const httpUrl = urlFlag('--target');
/** `--replica URL` (one of them). */
export const replicaUrl = urlFlag('--replica');

/** One of a fixed set of words. */
export function oneOf<T extends string>(choices: readonly T[]): (value: string) => T {
  return (value: string) => {
    if (!(choices as readonly string[]).includes(value)) {
      throw new InvalidArgumentError(`expected one of ${choices.join(', ')}, found ${JSON.stringify(value)}`);
    }
    return value as T;
  };
}

/** `--http-client`: a client's name, or an alias of one (`fast`), as its name. */
export function httpClientName(value: string): HttpClientName {
  const name = httpClientNamed(value);
  if (name === undefined)
    throw new InvalidArgumentError(
      `expected one of ${HTTP_CLIENTS.join(', ')} (or fast, rpcload's former name), found ${JSON.stringify(value)}`,
    );
  return name;
}

/** Accumulator for repeatable flags: `--x a --x b` → ['a', 'b']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * `--rate R` (constant) or `--rate FROM:TO` (a linear ramp over the phase). The load flags' parsers
 * read numbers only: what a load may be is checked once, with the profile's phases, when the plan
 * is resolved.
 */
export function rateSpec(value: string): RateLoad {
  const load = parseRate(value);
  if (load === null)
    throw new InvalidArgumentError(
      `expected a positive rate like 50, or FROM:TO like 10:200 (a linear ramp), found ${JSON.stringify(value)}`,
    );
  return load;
}

/** `--concurrency N`: N virtual users. */
export function concurrencySpec(value: string): ConcurrencyLoad {
  const load = parseConcurrency(value);
  if (load === null)
    throw new InvalidArgumentError(`expected a number of virtual users like 8, found ${JSON.stringify(value)}`);
  return load;
}

/** `--stages 30s:50,2m:50,30s:0`: each stage ramps from the previous rate (0 first) to its own over its duration. */
export function stagesSpec(value: string): Stage[] {
  const stages = parseStages(value);
  if (stages === null)
    throw new InvalidArgumentError(
      `expected DURATION:RATE[,DURATION:RATE…] like 30s:50,2m:50,30s:0, found ${JSON.stringify(value)}`,
    );
  return stages;
}

/** `--ca FILE`: the PEM text of an extra CA certificate to trust (one reader for run and verify). */
export function caFile(path: string): string {
  const read = readCa(process.cwd(), path);
  if (!read.ok) throw new InvalidArgumentError(`expected a readable PEM certificate file, found ${read.reason}`);
  return read.value;
}
