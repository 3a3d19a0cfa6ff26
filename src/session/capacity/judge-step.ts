/**
 * Judging one step of a capacity search from what it recorded: the measured hold's figures
 * (latency, service time, schedule lag, outcomes), the rate it achieved against the rate it
 * offered, and its verdict against the SLO lines — all of the searched workload's own requests,
 * whatever runs beside it. Pure: recorded data in, a step record out.
 */
import { outcomeClass } from '../../api/outcome.ts';
import type { CapacityLimit, CapacityStep } from '../../contract/capacity-schema.ts';
import type { CapacityStepDefinition } from '../../contract/live-view.ts';
import type { PhaseStats, Percentiles, RunResult, RunStop, ThresholdResult } from '../../contract/result-schema.ts';
import type { RecordedData } from '../../metrics/recorded-data.ts';
import { evaluateThreshold } from '../../profile/threshold-results.ts';
import { parseThreshold, type ParsedThreshold } from '../../profile/thresholds.ts';
import { readEncoded, round3, statsOf } from '../result/result-stats.ts';
import { busiestShareOfQuota, QUOTA_SKIP_REASONS, quotaShare, type QuotaUse } from './client-quota.ts';
import { holdLine, isWholeHold } from './step-slo.ts';

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
  /** The workload searched: its name, whether others run beside it, and its clients' IDs (the busiest is one). */
  readonly workload?: { readonly name: string; readonly beside: boolean; readonly clients: readonly string[] };
}

/** What the session measured of a step beside its recorded data. */
export interface StepSchedule {
  /** Arrivals not sent during the measured hold, by the driver's reason (the recorder counts the whole step). */
  readonly skippedInHold: Readonly<Record<string, number>>;
  /** The schedule's rate (a replay's: the recording's calls per second × the speed); null: the arrivals counted. */
  readonly scheduledPerS: number | null;
  /**
   * With workloads beside it: the searched workload's responses within the hold (null: not read;
   * absent: the timeline's).
   */
  readonly completedInHold?: number | null;
  /** An abortOnFail line that failed while the step ran and ended it there; absent when none did. */
  readonly stopped?: RunStop;
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

/** The busiest client of the step (requests per second over the whole step), among `ids` when given. */
function busiestClient(data: RecordedData, stepS: number, ids: readonly string[] | null): QuotaUse['busiest'] {
  let busiest: QuotaUse['busiest'] = null;
  for (const [id, client] of Object.entries(data.byClient)) {
    if (ids !== null && !ids.includes(id)) continue;
    const perS = Object.values(client.outcomes).reduce((a, b) => a + b, 0) / stepS;
    if (busiest === null || perS > busiest.perS) busiest = { id, perS: round3(perS) };
  }
  return busiest;
}

/**
 * Judge a step: its SLO lines are evaluated on the measured hold (each line's selection narrowed to
 * the hold phase, which is the searched workload's). In the open model, without include429, the
 * quotas must stop (refuse, or hold back while their client backs off) less than 1 % of the hold's
 * due arrivals, and for a replay no client of the workload may send faster than its quota; the
 * hold must also complete 99 % of the rest of its arrivals (less one request of rounding and what
 * the schedule lag p99 could push past the window's end); a schedule lag p99 above maxLagMs makes
 * the step generator-bound. An abortOnFail line that ended the step early fails it, decided by
 * that line. `stepResult` is the step's own result record (built from `data`).
 */
export function judgeStep(
  def: CapacityStepDefinition,
  rules: StepRules,
  data: RecordedData,
  stepResult: RunResult,
  schedule: StepSchedule,
): JudgedStep {
  const holdS = def.holdMs / 1000;
  const hold = statsOf(data.byPhase[def.phase], holdS);
  const lagEncoded = data.scheduleLagByPhase[def.phase];
  const lag = lagEncoded === undefined ? null : readEncoded(lagEncoded);
  const completed = completedInHold(def, rules, data, schedule, hold.requests);
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
  const holdRps = def.model === 'open' ? achievedPerS : hold.rps;
  const searched = rules.workload?.name ?? '';
  const judged = rules.slo.map((line) => holdLine(line, def.phase, searched));
  const view: RunResult = {
    ...stepResult,
    summary: {
      ...stepResult.summary,
      ...hold,
      rps: holdRps,
      durationS: holdS,
      scheduleLagMs: lag !== null && lag.count > 0 ? lag.percentiles : null,
    },
    bySelector: { ...stepResult.bySelector, ...holdSelections(def, data, judged, searched, holdRps) },
  };
  const lines: { result: ThresholdResult; limit: CapacityLimit }[] = rules.slo.map((line, i) => ({
    result: judgeLine(line, judged[i]!, view, isWholeHold(judged[i]!, def.phase, searched), schedule.stopped),
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
          busiest: rules.perClientQuota
            ? busiestClient(data, (def.warmUpMs + def.holdMs) / 1000, rules.workload?.clients ?? null)
            : null,
        }
      : null;
  if (def.model === 'open') {
    const forServer = due - heldBack;
    const share = forServer > 0 ? completed / forServer : 1;
    // What the generator's own lateness can push past the window's edge is not the server's fault.
    const edgeSlack =
      1 + (lag !== null && lag.count > 0 ? (forServer / Math.max(holdS, 1e-9)) * (lag.percentiles.p99 / 1000) : 0);
    lines.push({
      result: {
        expr: THROUGHPUT_LINE,
        actual: round3(share * 100),
        ok: completed >= THROUGHPUT_SHARE * forServer - edgeSlack,
      },
      limit: 'throughput',
    });
  }
  if (!rules.include429) {
    const share = quota === null ? evaluateThreshold(QUOTA_LINE, view) : quotaLine(quota);
    lines.push({ result: share, limit: 'client quota' });
    if (quota?.busiest != null) {
      const ofQuota = busiestShareOfQuota(quota);
      lines.push({
        result: { expr: CLIENT_RATE_LINE, actual: round3(ofQuota * 100), ok: ofQuota <= 1 },
        limit: 'client quota',
      });
    }
  }
  // The line that stopped the step decides it; then throughput decides last: calls the quotas
  // stopped, or a slow server, explain a shortfall first.
  const failed =
    lines.find((line) => line.result.expr === schedule.stopped?.threshold) ??
    lines.find((line) => !line.result.ok && line.limit !== 'throughput') ??
    lines.find((line) => !line.result.ok);
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
    slo: lines.map(({ result }) => ({ expr: result.expr, actual: result.actual, ok: result.ok })),
    ...(schedule.stopped === undefined ? {} : { stoppedAtMs: round3(schedule.stopped.atMs) }),
  };
  return { record, limit: generatorBound ? 'generator' : (failed?.limit ?? null), quota };
}

/** The quota line on the hold: refused and held back over the due arrivals (in %, as the line reads). */
function quotaLine(quota: QuotaUse): ThresholdResult {
  const share = quotaShare(quota);
  return { expr: QUOTA_LINE.expr, actual: Math.round(share * 100 * 1e6) / 1e6, ok: share < QUOTA_SHARE };
}

/**
 * The responses of the searched workload within the hold: read live when other workloads run
 * beside it (else its hold's requests, however late they completed), or the timeline's seconds of
 * the hold when it runs alone.
 */
function completedInHold(
  def: CapacityStepDefinition,
  rules: StepRules,
  data: RecordedData,
  schedule: StepSchedule,
  holdRequests: number,
): number {
  if (rules.workload?.beside === true) return schedule.completedInHold ?? holdRequests;
  const warmS = Math.round(def.warmUpMs / 1000);
  const holdS = def.holdMs / 1000;
  return data.timeline
    .filter((row) => row.t >= warmS && row.t < warmS + holdS)
    .reduce((sum, row) => sum + row.requests, 0);
}

/**
 * The figures of the SLO lines' selections narrowed to the hold, over the hold's length; a
 * selection that is the whole hold reads its rate as the hold does (`holdRps`: achieved, in the
 * open model).
 */
function holdSelections(
  def: CapacityStepDefinition,
  data: RecordedData,
  judged: readonly ParsedThreshold[],
  searched: string,
  holdRps: number,
): Record<string, PhaseStats> {
  const out: Record<string, PhaseStats> = {};
  for (const line of judged) {
    const slice = data.bySelector?.[line.selectorKey];
    if (slice === undefined || !line.selector.some((t) => t.key === 'phase' && t.value === def.phase)) continue;
    const lag = slice.scheduleLag === undefined ? null : readEncoded(slice.scheduleLag);
    out[line.selectorKey] = {
      ...statsOf(slice, def.holdMs / 1000),
      ...(isWholeHold(line, def.phase, searched) ? { rps: holdRps } : {}),
      ...(lag !== null && lag.count > 0 ? { scheduleLagMs: lag.percentiles } : {}),
    };
  }
  return out;
}

/**
 * One SLO line's verdict: on its selection within the hold when the step kept it, else on the
 * hold's own figures (a line of the whole hold, e.g. in data recorded without selections) or as
 * written; a line that stopped the step failed, whatever the figures say at its end.
 */
function judgeLine(
  line: ParsedThreshold,
  judged: ParsedThreshold,
  view: RunResult,
  wholeHold: boolean,
  stopped: RunStop | undefined,
): ThresholdResult {
  const onHold: ParsedThreshold = { ...line, selector: [], selectorKey: '' };
  const result = evaluateThreshold(
    view.bySelector?.[judged.selectorKey] !== undefined ? judged : wholeHold ? onHold : line,
    view,
  );
  return stopped?.threshold === line.expr ? { ...result, ok: false } : result;
}
