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
import { busiestShareOfQuota, QUOTA_SKIP_REASONS, quotaShare, type QuotaUse } from './client-quota.ts';

/** The implicit SLO line of the open model. */
export const THROUGHPUT_LINE = 'achieved >= 99% of offered';
/** Share of the offered requests that must complete within the hold. */
const THROUGHPUT_SHARE = 0.99;
/**
 * Without include429, a step whose quotas stopped more than this share of its calls (refused, or
 * held back while their client backed off) measured the limiter, not the server.
 */
export const QUOTA_LINE = parseThreshold('rate_limited < 1%');
const QUOTA_SHARE = 0.01;
/** A replay's implicit line: no client sends faster than its quota lets it (the recording decides who sends how much). */
export const CLIENT_RATE_LINE = 'busiest client <= its quota';

export interface StepRules {
  readonly slo: readonly ParsedThreshold[];
  readonly include429: boolean;
  readonly maxLagMs: number;
  /** The clients' quota (`limit` per `windowMs` per client ID); null without a contract. */
  readonly quota: { readonly limit: number; readonly windowMs: number } | null;
  /** Judge each client's own rate against its quota (a replay: no quota bound was worked out ahead). */
  readonly perClientQuota: boolean;
}

/** What the session measured of a step beside its recorded data. */
export interface StepSchedule {
  /** Arrivals not sent during the measured hold, by the driver's reason (the recorder counts the whole step). */
  readonly skippedInHold: Readonly<Record<string, number>>;
  /** The schedule's rate (a replay's: the recording's calls per second × the speed); null: the arrivals counted. */
  readonly scheduledPerS: number | null;
}

export interface JudgedStep {
  readonly record: CapacityStep;
  /** What the first failing line measures (null when the step passed). */
  readonly limit: CapacityLimit | null;
  /** How the step used the clients' quotas (open model with a contract); null otherwise. */
  readonly quota: QuotaUse | null;
}

const brief = (p: Percentiles): CapacityStep['latencyMs'] => ({ p50: p.p50, p90: p.p90, p99: p.p99, max: p.max });

/** What an SLO line limits when it fails. */
export function limitOf(line: ParsedThreshold): CapacityLimit {
  const { metric } = line;
  if (metric.kind === 'latency') return metric.source === 'scheduleLagMs' ? 'generator' : 'latency';
  if (metric.kind === 'share') return metric.of === 'error' ? 'errors' : 'client quota';
  return 'throughput';
}

/** The busiest client of the step (requests per second over the whole step). */
function busiestClient(data: RecordedData, stepS: number): QuotaUse['busiest'] {
  let busiest: QuotaUse['busiest'] = null;
  for (const [id, client] of Object.entries(data.byClient)) {
    const perS = Object.values(client.outcomes).reduce((a, b) => a + b, 0) / stepS;
    if (busiest === null || perS > busiest.perS) busiest = { id, perS: round3(perS) };
  }
  return busiest;
}

/**
 * Judge a step: its SLO lines are evaluated on the measured hold (method-scoped lines on the whole
 * step, warm-up included: the recorder keeps methods per run, not per phase). In the open model,
 * without include429, the quotas must stop (refuse, or hold back while their client backs off)
 * less than 1 % of the hold's due arrivals, and for a replay no client may send faster than its
 * quota; the hold must also complete 99 % of the rest of its arrivals (less one request of
 * rounding and what the schedule lag p99 could push past the window's end); a schedule lag p99
 * above maxLagMs makes the step generator-bound. `stepResult` is the step's own result record
 * (built from `data`).
 */
export function judgeStep(
  def: CapacityStepDefinition,
  rules: StepRules,
  data: RecordedData,
  stepResult: RunResult,
  schedule: StepSchedule,
): JudgedStep {
  const holdS = def.holdMs / 1000;
  const warmS = Math.round(def.warmUpMs / 1000);
  const hold = statsOf(data.byPhase[def.phase], holdS);
  const lagEncoded = data.scheduleLagByPhase[def.phase];
  const lag = lagEncoded === undefined ? null : readEncoded(lagEncoded);
  const completed = data.timeline.filter((row) => row.t >= warmS && row.t < warmS + holdS).reduce((sum, row) => sum + row.requests, 0);
  const skipped = Object.values(schedule.skippedInHold).reduce((a, b) => a + b, 0);
  const heldBack = QUOTA_SKIP_REASONS.reduce((sum, reason) => sum + (schedule.skippedInHold[reason] ?? 0), 0);
  const due = hold.requests + skipped;
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
  const quota: QuotaUse | null =
    def.model === 'open' && rules.quota !== null
      ? {
          limit: rules.quota.limit,
          windowS: rules.quota.windowMs / 1000,
          due,
          refused: limited,
          heldBack,
          busiest: rules.perClientQuota ? busiestClient(data, (def.warmUpMs + def.holdMs) / 1000) : null,
        }
      : null;
  if (def.model === 'open') {
    const forServer = due - heldBack;
    const share = forServer > 0 ? completed / forServer : 1;
    // What the generator's own lateness can push past the window's edge is not the server's fault.
    const edgeSlack = 1 + (lag !== null && lag.count > 0 ? (forServer / Math.max(holdS, 1e-9)) * (lag.percentiles.p99 / 1000) : 0);
    lines.push({
      result: { expr: THROUGHPUT_LINE, actual: round3(share * 100), ok: completed >= THROUGHPUT_SHARE * forServer - edgeSlack },
      limit: 'throughput',
    });
  }
  if (!rules.include429) {
    const share = quota === null ? evaluateThreshold(QUOTA_LINE, view) : quotaLine(quota);
    lines.push({ result: share, limit: 'client quota' });
    if (quota?.busiest != null) {
      const ofQuota = busiestShareOfQuota(quota);
      lines.push({ result: { expr: CLIENT_RATE_LINE, actual: round3(ofQuota * 100), ok: ofQuota <= 1 }, limit: 'client quota' });
    }
  }
  // Throughput decides last: calls the quotas stopped, or a slow server, explain a shortfall first.
  const failed = lines.find((line) => !line.result.ok && line.limit !== 'throughput') ?? lines.find((line) => !line.result.ok);
  const generatorBound = def.model === 'open' && lag !== null && lag.count > 0 && lag.percentiles.p99 > rules.maxLagMs;
  const record: CapacityStep = {
    index: def.index,
    kind: def.kind,
    load: def.load,
    phase: def.phase,
    warmUpPhase: def.warmUpPhase,
    holdS,
    requests: hold.requests,
    offeredPerS: schedule.scheduledPerS !== null ? round3(schedule.scheduledPerS) : holdS > 0 ? round3(due / holdS) : 0,
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
  return { record, limit: generatorBound ? 'generator' : (failed?.limit ?? null), quota };
}

/** The quota line on the hold: refused and held back over the due arrivals (in %, as the line reads). */
function quotaLine(quota: QuotaUse): ThresholdResult {
  const share = quotaShare(quota);
  return { expr: QUOTA_LINE.expr, actual: Math.round(share * 100 * 1e6) / 1e6, ok: share < QUOTA_SHARE };
}
