/** How a run's phases describe its load: in words for people, and as the run's timing model. */
import type { PhasePlan } from '../profile/plan.ts';
import type { RunInfo } from '../contract/result-schema.ts';

/** Human description of phases' load: "rate 100/s", "ramp 10→200/s", "concurrency 8", joined by " · ". */
export function describeLoad(phases: readonly PhasePlan[]): string {
  const parts = phases.map(({ load }) => {
    if (load.kind === 'concurrency') return `concurrency ${load.vus}`;
    return load.fromPerS === load.toPerS ? `rate ${load.fromPerS}/s` : `ramp ${load.fromPerS}→${load.toPerS}/s`;
  });
  return [...new Set(parts)].join(' · ');
}

/** open (arrival rate), closed (concurrency), or mixed across phases. */
export function runModel(phases: readonly PhasePlan[]): RunInfo['model'] {
  const kinds = new Set(phases.map((phase) => phase.load.kind));
  if (kinds.size > 1) return 'mixed';
  return kinds.has('concurrency') ? 'closed' : 'open';
}
