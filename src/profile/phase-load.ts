/**
 * A phase's load, in the one shape every way of asking for load takes — `--rate N`, `--rate
 * FROM:TO`, `--concurrency N`, `--stages`, a profile's `phases`, a capacity step, a worker's share
 * — from the flag or file that states it to the pacer that schedules it. Here too: the text forms
 * of the flags (read as numbers only) and the one check of what a load may be, which
 * resolve-phases.ts applies to every phase whatever stated it.
 */
import { MAX_DURATION_MS, parseDurationMs } from '../util/duration.ts';
import { expected, type Problem } from './problems.ts';

/**
 * Open model: scenario iterations started per second, `fromPerS` at the phase's start and
 * `toPerS` at its end (equal: a constant rate; else a linear ramp). How the arrivals are spaced
 * is the driver's pacer's business (driver/pacer.ts).
 */
export interface RateLoad {
  readonly kind: 'rate';
  readonly fromPerS: number;
  readonly toPerS: number;
}

/** Closed model: this many virtual users, each starting its next iteration when the last ends. */
export interface ConcurrencyLoad {
  readonly kind: 'concurrency';
  readonly vus: number;
}

/**
 * Closed model, bounded by count: each of the workload's clients runs this many iterations, one
 * after another ("each of these users once"), then stops; the phase ends when all are done (or
 * at its duration, the most it may last).
 */
export interface IterationsLoad {
  readonly kind: 'iterations';
  readonly perClient: number;
}

/**
 * Open model, timed by a recording: each recorded call is an arrival at its recorded offset ÷ the
 * workload's speed (its ReplayPlan says what and when).
 */
export interface ReplayLoad {
  readonly kind: 'replay';
}

export type PhaseLoad = RateLoad | ConcurrencyLoad | IterationsLoad | ReplayLoad;

/** A constant rate of `fromPerS`, or a linear ramp from it to `toPerS`. */
export function rateLoad(fromPerS: number, toPerS = fromPerS): RateLoad {
  return { kind: 'rate', fromPerS, toPerS };
}

export function concurrencyLoad(vus: number): ConcurrencyLoad {
  return { kind: 'concurrency', vus };
}

export function iterationsLoad(perClient: number): IterationsLoad {
  return { kind: 'iterations', perClient };
}

export const REPLAY_LOAD: ReplayLoad = Object.freeze({ kind: 'replay' });

/** Whether latency counts from an intended start (a rate, a replay) or from the send (users, iterations). */
export function isOpenModel(load: PhaseLoad): boolean {
  return load.kind === 'rate' || load.kind === 'replay';
}

/**
 * The most it asks of the generator at any moment: its highest rate, or its users; 0 for
 * iterations and a replay, whose peak is their clients' or their recording's (not the phase's).
 */
export function peakOf(load: PhaseLoad): number {
  switch (load.kind) {
    case 'rate':
      return Math.max(load.fromPerS, load.toPerS);
    case 'concurrency':
      return load.vus;
    default:
      return 0;
  }
}

/** A load that sends nothing (a rate of 0 throughout): a pause between phases, never a whole run. */
export function isIdle(load: PhaseLoad): boolean {
  return load.kind === 'rate' && load.fromPerS === 0 && load.toPerS === 0;
}

/** The load as its flag writes it: `50`, `10:200`, `8`; iterations and a replay as words. */
export function loadText(load: PhaseLoad): string {
  switch (load.kind) {
    case 'concurrency':
      return String(load.vus);
    case 'iterations':
      return `${load.perClient} iteration${load.perClient === 1 ? '' : 's'} per client`;
    case 'replay':
      return 'replay';
    case 'rate':
      return load.fromPerS === load.toPerS ? String(load.fromPerS) : `${load.fromPerS}:${load.toPerS}`;
  }
}

/** What is wrong with a load, as a problem at `pointer`; null when it can run. */
export function loadProblem(load: PhaseLoad, pointer: string): Problem | null {
  if (load.kind === 'replay') return null;
  if (load.kind === 'iterations')
    return Number.isInteger(load.perClient) && load.perClient > 0
      ? null
      : expected(pointer, 'a positive whole number of iterations per client', load.perClient);
  if (load.kind === 'concurrency')
    return Number.isInteger(load.vus) && load.vus > 0
      ? null
      : expected(pointer, 'a positive whole number of virtual users', load.vus);
  const isRate = (perS: number): boolean => Number.isFinite(perS) && perS >= 0;
  if (isRate(load.fromPerS) && isRate(load.toPerS)) return null;
  const found = load.fromPerS === load.toPerS ? load.fromPerS : loadText(load);
  return expected(pointer, 'arrivals per second of 0 or more (N, or FROM:TO for a ramp)', found);
}

/** One number of a flag: digits and the like, never '' (which Number reads as 0). */
function numberOf(text: string): number | null {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  return Number.isNaN(n) ? null : n;
}

/** `--rate N` (constant) or `--rate FROM:TO` (a linear ramp); null when the text is not that. */
export function parseRate(text: string): RateLoad | null {
  const parts = text.split(':');
  const numbers = parts.map(numberOf);
  if (parts.length > 2 || numbers.some((n) => n === null)) return null;
  return rateLoad(numbers[0]!, numbers.at(-1)!);
}

/** `--concurrency N`; null when the text is not a number. */
export function parseConcurrency(text: string): ConcurrencyLoad | null {
  const vus = numberOf(text);
  return vus === null ? null : concurrencyLoad(vus);
}

/** One `--stages` entry: how long it lasts and the ramp it runs. */
export interface Stage {
  readonly durationMs: number;
  readonly load: RateLoad;
}

/**
 * `--stages 30s:50,2m:50,30s:0`: each stage ramps from the previous stage's rate (0 for the first)
 * to its own over its duration. Null when an entry is not DURATION:RATE.
 */
export function parseStages(text: string): Stage[] | null {
  const stages: Stage[] = [];
  for (const entry of text.split(',')) {
    const [durationText = '', rateText = '', extra] = entry.trim().split(':');
    const durationMs = parseDurationMs(durationText);
    const toPerS = numberOf(rateText);
    if (extra !== undefined || durationMs === undefined || durationMs > MAX_DURATION_MS || toPerS === null) return null;
    stages.push({ durationMs, load: rateLoad(stages.at(-1)?.load.toPerS ?? 0, toPerS) });
  }
  return stages;
}
