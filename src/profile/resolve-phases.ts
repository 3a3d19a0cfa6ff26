/**
 * Resolves a profile's `phases`, then applies the `rpcload run` load flags that
 * replace or re-time them.
 */
import { formatDurationMs } from '../util/duration.ts';
import { infeasiblePhases } from './feasibility.ts';
import type { PhaseLoad, PhasePlan } from './plan.ts';
import { PhaseSchema } from './profile-schema.ts';
import { expected, uniqueNames, type Problem } from './problems.ts';
import { durationMs, POSITIVE } from './resolve-durations.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** The load flags of `rpcload run` that replace or reshape the profile's phases. */
export interface PhaseOverrides {
  readonly rate?: number;
  readonly concurrency?: number;
  readonly durationMs?: number;
}

/** Name of the single phase that `--rate` / `--concurrency` put in place of the profile's phases. */
export const OVERRIDE_PHASE_NAME = 'cli';

/**
 * Resolve the `phases` value (field by field: a field that failed the schema is reported there
 * and skipped here), then apply the load flags:
 * - `--rate N` / `--concurrency N` replace the phases with one phase of that load, lasting
 *   `--duration` or the profile's total;
 * - `--duration` alone re-times a single phase; with several phases it is ambiguous (a problem).
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
  const { rate, concurrency, durationMs: overrideMs } = overrides;
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) problems.push(expected('--rate', 'a positive number', rate));
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0))
    problems.push(expected('--concurrency', 'a positive integer', concurrency));
  if (overrideMs !== undefined && !(Number.isFinite(overrideMs) && overrideMs > 0))
    problems.push(expected('--duration', 'a duration greater than 0', overrideMs));
  if (rate !== undefined && concurrency !== undefined) {
    problems.push({ path: '--concurrency', message: 'expected either --rate (open model) or --concurrency (closed model), found both' });
    return phases;
  }
  const totalMs = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  if (rate !== undefined)
    return [{ name: OVERRIDE_PHASE_NAME, durationMs: overrideMs ?? totalMs, load: { kind: 'rate', fromPerS: rate, toPerS: rate } }];
  if (concurrency !== undefined)
    return [{ name: OVERRIDE_PHASE_NAME, durationMs: overrideMs ?? totalMs, load: { kind: 'concurrency', vus: concurrency } }];
  if (overrideMs === undefined) return phases;
  const [only] = phases;
  if (phases.length === 1 && only) return [{ ...only, durationMs: overrideMs }];
  problems.push({
    path: '--duration',
    message: `expected --rate or --concurrency with it (the profile has ${phases.length} phases; which load should run for ${formatDurationMs(overrideMs)}?), found --duration alone`,
  });
  return phases;
}
