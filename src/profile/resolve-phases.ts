/**
 * Resolves a profile's `phases`, then applies the `rpcload run` load flags that
 * replace or re-time them.
 */
import { infeasiblePhases } from './feasibility.ts';
import type { PhaseLoad, PhasePlan } from './plan.ts';
import { PhaseSchema } from './profile-schema.ts';
import { expected, uniqueNames, type Problem } from './problems.ts';
import { durationMs, POSITIVE } from './resolve-durations.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** `--rate`: a constant rate, or `FROM:TO`, a linear ramp over the phase. */
export type RateOverride = number | { readonly from: number; readonly to: number };

/** One `--stages` entry `DURATION:RATE`: ramp linearly from the previous stage's rate (0 first) to `toPerS`. */
export interface StageOverride {
  readonly durationMs: number;
  readonly toPerS: number;
}

/** The load flags of `rpcload run` that replace or reshape the profile's phases. */
export interface PhaseOverrides {
  readonly rate?: RateOverride;
  readonly concurrency?: number;
  readonly durationMs?: number;
  /** `--stages 30s:50,2m:50,30s:0`: open-model phases `stage-1` … in place of the profile's. */
  readonly stages?: readonly StageOverride[];
  /** `-n N`: the constant-rate phase lasts exactly N arrivals (N / rate seconds). */
  readonly requests?: number;
}

/** Name of the single phase that `--rate` / `--concurrency` put in place of the profile's phases. */
export const OVERRIDE_PHASE_NAME = 'cli';

/**
 * Resolve the `phases` value (field by field: a field that failed the schema is reported there
 * and skipped here), then apply the load flags:
 * - `--rate N` / `--concurrency N` replace the phases with one phase of that load, lasting
 *   `--duration` or the profile's total;
 * - `--duration` alone scales the phases to that total, keeping their loads and proportions.
 */
export function resolvePhases(phases: unknown, overrides: PhaseOverrides, problems: Problem[]): PhasePlan[] {
  const resolved: PhasePlan[] = [];
  const checkName = uniqueNames('phase', problems);
  (Array.isArray(phases) ? phases : []).forEach((phase: unknown, index) => {
    const pointer = `/phases/${index}`;
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
    const phaseMs = fields.duration === undefined ? 0 : durationMs(fields.duration, `${pointer}/duration`, problems, POSITIVE);
    resolved.push({ name, durationMs: phaseMs, load: phaseLoad(fields) });
  });
  const phasesRun = applyOverrides(resolved, overrides, problems);
  const flag = overrides.rate !== undefined ? '--rate' : overrides.concurrency !== undefined ? '--concurrency' : null;
  problems.push(...infeasiblePhases(phasesRun, (index, field) => flag ?? `/phases/${index}/${field}`));
  return phasesRun;
}

/** The phase's load; a phase without a valid one has problems, so its placeholder is never run. */
function phaseLoad({ rate, concurrency }: { rate?: number | { from: number; to: number }; concurrency?: number }): PhaseLoad {
  if (concurrency !== undefined) return { kind: 'concurrency', vus: concurrency };
  if (typeof rate === 'number') return { kind: 'rate', fromPerS: rate, toPerS: rate };
  return { kind: 'rate', fromPerS: rate?.from ?? 0, toPerS: rate?.to ?? 0 };
}

function applyOverrides(phases: PhasePlan[], overrides: PhaseOverrides, problems: Problem[]): PhasePlan[] {
  const { rate, concurrency, stages, requests } = overrides;
  const from = rate === undefined ? undefined : typeof rate === 'number' ? rate : rate.from;
  const to = rate === undefined ? undefined : typeof rate === 'number' ? rate : rate.to;
  if (typeof rate === 'number' && !(Number.isFinite(rate) && rate > 0)) problems.push(expected('--rate', 'a positive number', rate));
  if (typeof rate === 'object' && !(isRate(from) && isRate(to) && Math.max(from!, to!) > 0))
    problems.push(expected('--rate', 'FROM:TO rates of 0 or more, not both 0', `${from}:${to}`));
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0))
    problems.push(expected('--concurrency', 'a positive integer', concurrency));
  if (overrides.durationMs !== undefined && !(Number.isFinite(overrides.durationMs) && overrides.durationMs > 0))
    problems.push(expected('--duration', 'a duration greater than 0', overrides.durationMs));
  if (requests !== undefined && !(Number.isInteger(requests) && requests > 0))
    problems.push(expected('--requests', 'a positive integer', requests));
  if (rate !== undefined && concurrency !== undefined) {
    problems.push({ path: '--concurrency', message: 'expected either --rate (open model) or --concurrency (closed model), found both' });
    return phases;
  }
  if (stages !== undefined) return stagePhases(stages, overrides, problems) ?? phases;
  const overrideMs = requests === undefined ? overrides.durationMs : requestsDurationMs(requests, overrides, phases, problems);
  const totalMs = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  if (from !== undefined && to !== undefined)
    return [{ name: OVERRIDE_PHASE_NAME, durationMs: overrideMs ?? totalMs, load: { kind: 'rate', fromPerS: from, toPerS: to } }];
  if (concurrency !== undefined)
    return [{ name: OVERRIDE_PHASE_NAME, durationMs: overrideMs ?? totalMs, load: { kind: 'concurrency', vus: concurrency } }];
  if (overrideMs === undefined) return phases;
  return scaledPhases(phases, overrideMs);
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
    const durationMs = index === phases.length - 1 ? totalMs - usedMs : Math.round((phase.durationMs / profileMs) * totalMs);
    usedMs += durationMs;
    return { ...phase, durationMs };
  });
}

const isRate = (n: number | undefined): boolean => n !== undefined && Number.isFinite(n) && n >= 0;

/** `--stages`: each stage ramps from the previous one's rate (0 for the first) to its own. */
function stagePhases(stages: readonly StageOverride[], overrides: PhaseOverrides, problems: Problem[]): PhasePlan[] | undefined {
  const others = (['rate', 'concurrency', 'durationMs', 'requests'] as const).filter((key) => overrides[key] !== undefined);
  if (others.length > 0) {
    const flag = { rate: '--rate', concurrency: '--concurrency', durationMs: '--duration', requests: '--requests' }[others[0]!];
    problems.push({ path: '--stages', message: `expected --stages alone (the stages set both rate and duration), found ${flag} too` });
    return undefined;
  }
  if (stages.length === 0 || stages.some((s) => !(s.durationMs > 0 && isRate(s.toPerS)))) {
    problems.push({
      path: '--stages',
      message: 'expected DURATION:RATE[,DURATION:RATE…] with durations above 0, found none or a bad stage',
    });
    return undefined;
  }
  return stages.map((stage, index) => ({
    name: `stage-${index + 1}`,
    durationMs: stage.durationMs,
    load: { kind: 'rate', fromPerS: index === 0 ? 0 : stages[index - 1]!.toPerS, toPerS: stage.toPerS },
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
  const { rate } = overrides;
  const [only] = phases;
  const perS =
    typeof rate === 'number'
      ? rate
      : rate === undefined && phases.length === 1 && only?.load.kind === 'rate' && only.load.fromPerS === only.load.toPerS
        ? only.load.fromPerS
        : undefined;
  if (overrides.durationMs !== undefined || perS === undefined || !(perS > 0)) {
    problems.push({
      path: '--requests',
      message: `expected a constant --rate R with it and no --duration (the run lasts N / R seconds), found ${overrides.durationMs !== undefined ? '--duration too' : 'no constant rate'}`,
    });
    return overrides.durationMs;
  }
  return (requests / perS) * 1000;
}
