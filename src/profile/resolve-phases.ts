/**
 * Resolves a profile's `phases`, then applies the `rpcload run` load flags that replace or re-time
 * them. Every phase's load is checked here, once, whatever stated it: a file, `--rate`,
 * `--concurrency` or `--stages` (the flags' parsers only read their numbers).
 */
import { infeasiblePhases } from './feasibility.ts';
import { concurrencyLoad, isIdle, loadProblem, rateLoad, type PhaseLoad, type Stage } from './phase-load.ts';
import type { ArrivalProcess, PhasePlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { PhaseSchema } from './profile-schema.ts';
import { expected, uniqueNames, type Problem } from './problems.ts';
import { durationMs, POSITIVE } from './resolve-durations.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** The load flags of `rpcload run` that replace or reshape the profile's phases. */
export interface PhaseOverrides {
  /** `--rate N`, `--rate FROM:TO` or `--concurrency N`: one phase of this load instead of the profile's. */
  readonly load?: PhaseLoad;
  readonly durationMs?: number;
  /** `--stages 30s:50,2m:50,30s:0`: open-model phases `stage-1` … in place of the profile's. */
  readonly stages?: readonly Stage[];
  /** `-n N`: the constant-rate phase lasts exactly N arrivals (N / rate seconds). */
  readonly requests?: number;
  /** `--arrivals uniform|poisson`: the arrival process of every phase played. */
  readonly arrivals?: ArrivalProcess;
}

/** Name of the single phase that `--rate` / `--concurrency` put in place of the profile's phases. */
export const OVERRIDE_PHASE_NAME = 'cli';

/** Where the phases a run plays came from: the profile, or the flag that replaced them (named in problems). */
type PhasesSource = 'profile' | '--rate' | '--concurrency' | '--stages';

const loadFlag = (load: PhaseLoad): PhasesSource => (load.kind === 'rate' ? '--rate' : '--concurrency');

/**
 * Resolve the `phases` value (field by field: a field that failed the schema is reported there
 * and skipped here), apply the load flags, then check the loads of the phases the run will play:
 * - `--rate` / `--concurrency` replace the phases with one phase of that load, lasting
 *   `--duration` or the profile's total;
 * - `--stages` replaces them with its stages;
 * - `--duration` alone scales the phases to that total, keeping their loads and proportions.
 */
export function resolvePhases(
  phases: unknown,
  overrides: PhaseOverrides,
  problems: Problem[],
  where: PhasesPlace = TOP_LEVEL_PHASES,
): PhasePlan[] {
  const resolved: PhasePlan[] = [];
  // A profile phase without a valid load (reported by the schema or below) holds an idle placeholder.
  let placeholders = false;
  const checkName = uniqueNames('phase', problems);
  (Array.isArray(phases) ? phases : []).forEach((phase: unknown, index) => {
    const pointer = `${where.pointer}/${index}`;
    const fields = validFields(PhaseSchema, phase);
    const name = fields.name ?? `phase-${index + 1}`;
    checkName(name, index, pointer, fields.name !== undefined);
    // Presence, not validity, decides "exactly one": a bad rate is still a rate.
    const given = isRecord(phase) ? (['rate', 'concurrency'] as const).filter((key) => phase[key] !== undefined) : [];
    if (given.length !== 1) {
      const found = given.length === 0 ? 'neither' : 'both';
      problems.push({
        path: pointer,
        message: `expected exactly one of "rate" (arrivals per second) and "concurrency" (virtual users), found ${found}`,
      });
    }
    placeholders ||= fields.rate === undefined && fields.concurrency === undefined;
    const phaseMs =
      fields.duration === undefined ? 0 : durationMs(fields.duration, `${pointer}/duration`, problems, POSITIVE);
    resolved.push({
      name,
      workload: where.workload,
      durationMs: phaseMs,
      load: profileLoad(fields),
      arrivals: fields.arrivals ?? where.arrivals,
    });
  });
  const { phases: played, source } = applyOverrides(resolved, overrides, where.workload, problems);
  checkLoads(played, source, placeholders, where.pointer, problems);
  const { arrivals } = overrides;
  return arrivals === undefined ? played : played.map((phase) => ({ ...phase, arrivals }));
}

/** Where a list of phases sits: the profile's top level, or a workload. */
export interface PhasesPlace {
  /** JSON pointer of the list (`/phases`, `/workloads/1/phases`). */
  readonly pointer: string;
  /** The workload the phases belong to (index into the plan's workloads). */
  readonly workload: number;
  /** The arrival process of a phase that names none. */
  readonly arrivals: ArrivalProcess;
}

/** The top-level `phases` of a profile without workloads: its one workload's. */
export const TOP_LEVEL_PHASES: PhasesPlace = { pointer: '/phases', workload: 0, arrivals: D.phase.arrivals };

/**
 * The one check of the loads a run plays, whatever stated them: each load can run (loadProblem),
 * not every phase is idle, and this machine can honour each. `placeholders`: some profile phase
 * had no valid load (already a problem), so the idle check would only repeat it.
 */
function checkLoads(
  played: readonly PhasePlan[],
  source: PhasesSource,
  placeholders: boolean,
  listPointer: string,
  problems: Problem[],
): void {
  const pointerOf = (index: number, field: string): string =>
    source === 'profile' ? `${listPointer}/${index}/${field}` : source;
  const loadProblems = played.flatMap(
    (phase, index) => loadProblem(phase.load, pointerOf(index, phase.load.kind)) ?? [],
  );
  problems.push(...loadProblems);
  const judged = loadProblems.length === 0 && !(source === 'profile' && placeholders);
  if (judged && played.length > 0 && played.every((phase) => isIdle(phase.load)))
    problems.push({
      path: source === 'profile' ? listPointer : source,
      message: 'expected a rate above 0 at some point (a run that sends nothing measures nothing), found 0 throughout',
    });
  problems.push(...infeasiblePhases(played, pointerOf));
}

/** The phase's load; a phase without a valid one has problems, so its (idle) placeholder is never run. */
function profileLoad({
  rate,
  concurrency,
}: {
  rate?: number | { from: number; to: number };
  concurrency?: number;
}): PhaseLoad {
  if (concurrency !== undefined) return concurrencyLoad(concurrency);
  if (typeof rate === 'number') return rateLoad(rate);
  return rateLoad(rate?.from ?? 0, rate?.to ?? 0);
}

function applyOverrides(
  phases: PhasePlan[],
  overrides: PhaseOverrides,
  workload: number,
  problems: Problem[],
): { readonly phases: PhasePlan[]; readonly source: PhasesSource } {
  const { load, stages, requests } = overrides;
  if (overrides.durationMs !== undefined && !(Number.isFinite(overrides.durationMs) && overrides.durationMs > 0))
    problems.push(expected('--duration', 'a duration greater than 0', overrides.durationMs));
  if (requests !== undefined && !(Number.isInteger(requests) && requests > 0))
    problems.push(expected('--requests', 'a positive integer', requests));
  if (stages !== undefined) {
    const staged = stagePhases(stages, overrides, workload, problems);
    return staged === undefined ? { phases, source: 'profile' } : { phases: staged, source: '--stages' };
  }
  const overrideMs =
    requests === undefined ? overrides.durationMs : requestsDurationMs(requests, overrides, phases, problems);
  const totalMs = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  if (load !== undefined)
    return {
      phases: [
        { name: OVERRIDE_PHASE_NAME, workload, durationMs: overrideMs ?? totalMs, load, arrivals: D.phase.arrivals },
      ],
      source: loadFlag(load),
    };
  return { phases: overrideMs === undefined ? phases : scaledPhases(phases, overrideMs), source: 'profile' };
}

/**
 * `--duration` alone: the phases keep their loads and proportions and last `totalMs` together (a
 * single phase simply takes it), so `rpcload run --duration 10s` shortens the demo's ramp and
 * steady phases alike. The last phase absorbs the rounding so the total is exact.
 */
function scaledPhases(phases: readonly PhasePlan[], totalMs: number): PhasePlan[] {
  const profileMs = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  let usedMs = 0;
  return phases.map((phase, index) => {
    const durationMs =
      index === phases.length - 1 ? totalMs - usedMs : Math.round((phase.durationMs / profileMs) * totalMs);
    usedMs += durationMs;
    return { ...phase, durationMs };
  });
}

/** `--stages`: the stages as phases `stage-1` …, each its own duration and ramp. */
function stagePhases(
  stages: readonly Stage[],
  overrides: PhaseOverrides,
  workload: number,
  problems: Problem[],
): PhasePlan[] | undefined {
  const { load, durationMs: overrideMs, requests } = overrides;
  const flag =
    load !== undefined
      ? loadFlag(load)
      : overrideMs !== undefined
        ? '--duration'
        : requests !== undefined
          ? '--requests'
          : undefined;
  if (flag !== undefined) {
    problems.push({
      path: '--stages',
      message: `expected --stages alone (the stages set both rate and duration), found ${flag} too`,
    });
    return undefined;
  }
  if (stages.length === 0 || stages.some((stage) => !(stage.durationMs > 0))) {
    problems.push({
      path: '--stages',
      message: 'expected DURATION:RATE[,DURATION:RATE…] with durations above 0, found none or a bad stage',
    });
    return undefined;
  }
  return stages.map((stage, index) => ({
    name: `stage-${index + 1}`,
    workload,
    durationMs: stage.durationMs,
    load: stage.load,
    arrivals: D.phase.arrivals,
  }));
}

/**
 * `-n N`: the duration that holds exactly N arrivals at a constant rate (the pacer releases
 * arrivals at k / rate), i.e. N requests when every scenario is one unpaginated request.
 */
function requestsDurationMs(
  requests: number,
  overrides: PhaseOverrides,
  phases: readonly PhasePlan[],
  problems: Problem[],
): number | undefined {
  const [only] = phases;
  const load = overrides.load ?? (phases.length === 1 ? only?.load : undefined);
  const perS = load?.kind === 'rate' && load.fromPerS === load.toPerS ? load.fromPerS : undefined;
  if (overrides.durationMs !== undefined || perS === undefined || !(perS > 0)) {
    problems.push({
      path: '--requests',
      message: `expected a constant --rate R with it and no --duration (the run lasts N / R seconds), found ${overrides.durationMs !== undefined ? '--duration too' : 'no constant rate'}`,
    });
    return overrides.durationMs;
  }
  return (requests / perS) * 1000;
}
