/**
 * Judging one step of a capacity search from what it recorded: the measured hold's figures
 * (latency, service time, schedule lag, outcomes), the rate it achieved against the rate it
 * offered, and its verdict against the SLO lines. Pure: recorded data in, a step record out.
 */
import { outcomeClass } from '../../api/outcome.ts';
import type { CapacityLimit, CapacityStep } from '../../contract/capacity-schema.ts';
import type { CapacityStepDefinition } from '../../contract/live-view.ts';
import type { Percentiles, RunResult, ThresholdResult } from '../../contract/result-schema.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import { evaluateThreshold, parseThreshold, type ParsedThreshold } from '../../profile/thresholds.ts';
import { readEncoded, round3, statsOf } from '../result/result-stats.ts';

/** The implicit SLO line of the open model. */
export const THROUGHPUT_LINE = 'achieved >= 99% of offered';
/** Share of the offered requests that must complete within the hold. */
const THROUGHPUT_SHARE = 0.99;
/** Without include429, a step with more 429s than this measured the limiter, not the server. */
export const QUOTA_LINE = parseThreshold('rate_limited < 1%');

export interface StepRules {
  readonly slo: readonly ParsedThreshold[];
  readonly include429: boolean;
  readonly maxLagMs: number;
}

export interface JudgedStep {
  readonly record: CapacityStep;
  /** What the first failing line measures (null when the step passed). */
  readonly limit: CapacityLimit | null;
}

const brief = (p: Percentiles): CapacityStep['latencyMs'] => ({ p50: p.p50, p90: p.p90, p99: p.p99, max: p.max });

/** What an SLO line limits when it fails. */
export function limitOf(line: ParsedThreshold): CapacityLimit {
  const { metric } = line;
  if (metric.kind === 'latency') return metric.source === 'scheduleLagMs' ? 'generator' : 'latency';
  if (metric.kind === 'share') return metric.of === 'error' ? 'errors' : 'client quota';
  return 'throughput';
}

/**
 * Judge a step: its SLO lines are evaluated on the measured hold (method-scoped lines on the whole
 * step, warm-up included: the recorder keeps methods per run, not per phase); in the open model
 * the hold must also complete 99 % of the requests its arrivals made (less one request of
 * rounding and what the schedule lag p99 could push past the window's end), and a schedule lag p99 above maxLagMs makes the step generator-bound.
 * `stepResult` is the step's own result record (built from `data`).
 */
export function judgeStep(def: CapacityStepDefinition, rules: StepRules, data: RecordedData, stepResult: RunResult): JudgedStep {
  const holdS = def.holdMs / 1000;
  const warmS = Math.round(def.warmUpMs / 1000);
  const hold = statsOf(data.byPhase[def.phase], holdS);
  const lagEncoded = data.scheduleLagByPhase[def.phase];
  const lag = lagEncoded === undefined ? null : readEncoded(lagEncoded);
  const completed = data.timeline.filter((row) => row.t >= warmS && row.t < warmS + holdS).reduce((sum, row) => sum + row.requests, 0);
  const skipped = Object.values(data.skipped).reduce((a, b) => a + b, 0);
  const offered = hold.requests + skipped;
  let errors = 0;
  let limited = 0;
  for (const [outcome, n] of Object.entries(hold.outcomes)) {
    const cls = outcomeClass(outcome);
    if (cls === 'error') errors += n;
    else if (cls === 'rate_limited') limited += n;
  }
  const achievedPerS = holdS > 0 ? round3(completed / holdS) : 0;
  const view: RunResult = {
    ...stepResult,
    summary: {
      ...stepResult.summary,
      ...hold,
      rps: def.model === 'open' ? achievedPerS : hold.rps,
      durationS: holdS,
      scheduleLagMs: lag !== null && lag.count > 0 ? lag.percentiles : null,
    },
  };
  const lines: { result: ThresholdResult; limit: CapacityLimit }[] = rules.slo.map((line) => ({
    result: evaluateThreshold(line, view),
    limit: limitOf(line),
  }));
  if (def.model === 'open') {
    const share = offered > 0 ? completed / offered : 1;
    // What the generator's own lateness can push past the window's edge is not the server's fault.
    const edgeSlack = 1 + (lag !== null && lag.count > 0 ? (offered / Math.max(holdS, 1e-9)) * (lag.percentiles.p99 / 1000) : 0);
    lines.push({
      result: { expr: THROUGHPUT_LINE, actual: round3(share * 100), ok: completed >= THROUGHPUT_SHARE * offered - edgeSlack },
      limit: 'throughput',
    });
  }
  if (!rules.include429) lines.push({ result: evaluateThreshold(QUOTA_LINE, view), limit: 'client quota' });
  const failed = lines.find((line) => !line.result.ok);
  const generatorBound = def.model === 'open' && lag !== null && lag.count > 0 && lag.percentiles.p99 > rules.maxLagMs;
  const record: CapacityStep = {
    index: def.index,
    kind: def.kind,
    load: def.load,
    phase: def.phase,
    warmUpPhase: def.warmUpPhase,
    holdS,
    requests: hold.requests,
    offeredPerS: holdS > 0 ? round3(offered / holdS) : 0,
    achievedPerS,
    latencyMs: brief(hold.latencyMs),
    serviceTimeMs: brief(hold.serviceTimeMs),
    scheduleLagMs: lag !== null && lag.count > 0 ? brief(lag.percentiles) : null,
    errorRate: hold.requests > 0 ? round3(errors / hold.requests) : 0,
    rateLimitedRate: hold.requests > 0 ? round3(limited / hold.requests) : 0,
    verdict: generatorBound ? 'generator-bound' : failed === undefined ? 'pass' : 'fail',
    decidedBy: generatorBound ? `lag.p99 < ${rules.maxLagMs}ms` : (failed?.result.expr ?? null),
    slo: lines.map((line) => line.result),
  };
  return { record, limit: generatorBound ? 'generator' : (failed?.limit ?? null) };
}
