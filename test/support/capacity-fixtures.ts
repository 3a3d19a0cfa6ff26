/**
 * Capacity result files for the compare and trend tests: a real (generated) result file with a
 * capacity record of a search that ended at the given bracket, built the way the session builds
 * one (steps growing ×2 to the first fail, then the bracket, then a confirmation).
 */
import type { CapacityRecord, CapacityStep } from '../../src/contract/capacity-schema.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { makeResult } from './result-fixtures.ts';

export interface CapacityFixture {
  readonly seed: number;
  readonly ratePerS: number;
  /** First fail; default ratePerS × 1.04. */
  readonly firstFail?: number | null;
  readonly atLeast?: boolean;
  readonly limitedBy?: CapacityRecord['limitedBy'];
  readonly label?: string;
  readonly startedAt?: string;
  /** p50/p99 at the answer (ms). Defaults 10 / 40. */
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly errorRate?: number;
}

function step(
  index: number,
  kind: CapacityStep['kind'],
  load: number,
  pass: boolean,
  f: CapacityFixture,
): CapacityStep {
  const p50 = f.p50Ms ?? 10;
  const p99 = f.p99Ms ?? 40;
  return {
    index,
    kind,
    load,
    phase: `${kind === 'search' ? 'step' : 'confirm'}-${String(index).padStart(2, '0')}`,
    warmUpPhase: null,
    holdS: kind === 'search' ? 5 : 15,
    requests: Math.round(load * 5),
    offeredPerS: load,
    achievedPerS: pass ? load : load * 0.9,
    latencyMs: { p50, p90: (p50 + p99) / 2, p99: pass ? p99 : p99 * 5, max: p99 * 6 },
    serviceTimeMs: { p50, p90: p50, p99: p50 * 2, max: p50 * 3 },
    scheduleLagMs: { p50: 0.1, p90: 0.2, p99: 0.5, max: 1 },
    errorRate: f.errorRate ?? 0,
    rateLimitedRate: 0,
    verdict: pass ? 'pass' : 'fail',
    decidedBy: pass ? null : 'p99 < 100ms',
    slo: [{ expr: 'p99 < 100ms', actual: pass ? p99 : p99 * 5, ok: pass }],
  };
}

export function capacityResult(f: CapacityFixture): RunResult {
  const base = makeResult({
    seed: f.seed,
    rps: 50,
    durationS: 5,
    ...(f.startedAt === undefined ? {} : { startedAt: f.startedAt }),
    kind: 'capacity',
    profile: 'capacity',
  });
  const firstFail = f.firstFail === undefined ? Math.round(f.ratePerS * 1.04) : f.firstFail;
  const steps: CapacityStep[] = [];
  let load = 25;
  while (load < f.ratePerS) {
    steps.push(step(steps.length + 1, 'search', load, true, f));
    load *= 2;
  }
  if (firstFail !== null) steps.push(step(steps.length + 1, 'search', firstFail, false, f));
  steps.push(step(steps.length + 1, 'search', f.ratePerS, true, f));
  steps.push(step(steps.length + 1, 'confirm', f.ratePerS, true, f));
  const record: CapacityRecord = {
    model: 'open',
    ratePerS: f.ratePerS,
    atLeast: f.atLeast ?? false,
    bracket: [f.ratePerS, firstFail],
    limitedBy: f.limitedBy ?? 'latency',
    finding: `capacity ${f.atLeast ? 'at least ' : ''}${f.ratePerS}/s`,
    slo: ['p99 < 100ms', 'achieved >= 99% of offered'],
    confirmation: { load: f.ratePerS, holdS: 15, passed: true, steppedDownFrom: null },
    search: {
      start: 25,
      factor: 2,
      tolerance: 0.05,
      warmUpS: 2,
      holdS: 5,
      confirmS: 15,
      maxLagMs: 20,
      include429: false,
    },
    steps,
  };
  return { ...base, run: { ...base.run, ...(f.label === undefined ? {} : { label: f.label }) }, capacity: record };
}
