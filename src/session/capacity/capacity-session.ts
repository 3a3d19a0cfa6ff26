/**
 * `rpcload capacity`: the highest rate (open model) or concurrency (closed model) the target
 * sustains within its SLO. Opens the target once, then runs the search step by step — each step a
 * real load run of a warm-up phase and a measured hold, judged on its own figures — bounded by
 * the clients' quotas and by the generator's own schedule lag, confirms the answer with a longer
 * hold (stepping down when that fails), and writes one result file with every step (rewritten
 * after each step, so an interrupted search still leaves its steps behind).
 */
import { randomUUID } from 'node:crypto';
import { scanDataSet } from '../../driver/data-rows.ts';
import { hostname } from 'node:os';
import type { CapacityRecord, CapacityStep } from '../../contract/capacity-schema.ts';
import type { CapacityBracket, CapacityProgress, CapacityStepDefinition } from '../../contract/live-view.ts';
import type { RunInfo, RunResult, RunStatus, ThresholdResult } from '../../contract/result-schema.ts';
import { describeError, ExitCode, RpcloadError } from '../../errors.ts';
import { resolveCapacity, type CapacityPlan } from '../../profile/capacity-settings.ts';
import type { PhasePlan, Plan } from '../../profile/plan.ts';
import { replayAtSpeed, replayBaseRatePerS } from '../../profile/replay-plan.ts';
import { dimensionsOf, startLoad, type RunningLoad } from '../load.ts';
import { buildRunResult } from '../result/build-result.ts';
import { assertResultPathWritable, defaultResultPath, writeResultFile } from '../../result-file/write-result.ts';
import { aimedAt, insecureWarning, openTarget, type Target } from '../target.ts';
import { buildCapacityResult, type StepData } from './capacity-result.ts';
import { busiestAtOne, quotaBound, quotaFinding, quotaUseText, type QuotaBound } from './client-quota.ts';
import { CLIENT_RATE_LINE, judgeStep, THROUGHPUT_LINE, type JudgedStep, type StepRules } from './judge-step.ts';
import { capacityAnswer, type Attempt, type SearchEnd } from './capacity-answer.ts';
import { capacityFinding, showLoad, type SearchedUnit } from './capacity-finding.ts';
import { skippedInHold, watchWarmUpSkips } from './hold-skips.ts';
import { bracketOf, nextStep, roundLoad, type SearchCeiling, type SearchPoint } from './search.ts';
import { fitUsl } from './usl.ts';
import {
  metricsReadOptions,
  openMetricsEndpoint,
  whileServing,
  type MetricsEndpoint,
  type MetricsOptions,
} from '../../prometheus/metrics-endpoint.ts';

export interface CapacitySessionOptions {
  readonly plan: Plan;
  readonly outPath?: string;
  readonly signal: AbortSignal;
  readonly workers?: number;
  readonly label?: string;
  /** Told when a step starts (with the step's load running) and when it has been judged. */
  readonly onProgress?: (event: CapacityProgress) => void;
  /** `--metrics-listen` and companions: live Prometheus metrics of every step, until the result file is written. */
  readonly metrics?: MetricsOptions | null;
  /** Told, before the first step, what the result file will also record as warnings (e.g. `--insecure`). */
  readonly warn?: (warning: string) => void;
}

export interface CapacitySessionResult {
  readonly result: RunResult;
  readonly record: CapacityRecord;
  readonly path: string;
  readonly exitCode: ExitCode;
  /** Resolves when the metrics endpoint has closed after its linger (at once without `--metrics-listen`): await it after reporting. */
  readonly metricsClosed: Promise<void>;
}

/** Confirmation attempts, each one tolerance lower than the last, before giving up. */
const CONFIRM_ATTEMPTS = 3;

export async function capacitySession(options: CapacitySessionOptions): Promise<CapacitySessionResult> {
  // Found out now, not after the whole search.
  if (options.outPath !== undefined) await assertResultPathWritable(options.outPath);
  for (const set of options.plan.data) await scanDataSet(set);
  const runId = randomUUID();
  // Before any load: a port in use is a bad flag, found before the target is even opened.
  const endpoint =
    options.metrics == null ? null : await openMetricsEndpoint(options.metrics, { runId, profile: options.plan.name, shard: '1/1' }, true);
  const { value, closed } = await whileServing(endpoint, async () => {
    const search = new CapacitySearch(options, runId, endpoint);
    const target = await openTarget(options.plan);
    try {
      return await search.run(target);
    } finally {
      await target.close();
    }
  });
  return { ...value, metricsClosed: closed };
}

const show = showLoad;

class CapacitySearch {
  private readonly startedAt = new Date();
  private readonly cap: CapacityPlan;
  private readonly path: string;
  private readonly steps: { judged: JudgedStep; readonly data: StepData }[] = [];
  /** Said before the first step and kept in the result file's warnings. */
  private readonly warnings: readonly string[];
  private originEpochMs = Number.NaN;
  private target!: Target;

  constructor(
    private readonly options: CapacitySessionOptions,
    private readonly id: string,
    private readonly endpoint: MetricsEndpoint | null,
  ) {
    this.cap = options.plan.capacity ?? resolveCapacity({}, []);
    this.path = options.outPath ?? defaultResultPath(`${options.plan.name}-capacity`, this.startedAt);
    const insecure = insecureWarning(options.plan.target, options.plan.http.insecure);
    this.warnings = insecure === null ? [] : [insecure];
    for (const warning of this.warnings) options.warn?.(warning);
  }

  private get plan(): Plan {
    return this.options.plan;
  }

  /** What the steps' loads count. */
  private get searched(): SearchedUnit {
    return this.plan.replay === undefined ? this.cap.model : 'replay';
  }

  async run(target: Target): Promise<Omit<CapacitySessionResult, 'metricsClosed'>> {
    this.target = target;
    const { cap } = this;
    const slo = cap.slo ?? this.plan.thresholds;
    const { limit, windowMs } = this.plan.rateLimit;
    // A replay's callers send what the recording says: each one's rate is judged against its quota.
    const rules: StepRules = {
      slo,
      include429: cap.include429,
      maxLagMs: cap.maxLagMs,
      quota: { limit, windowMs },
      perClientQuota: this.plan.replay !== undefined,
    };
    // A replay's mix of callers is the recording's: its quotas show up as 429s in the steps, not as a bound worked out ahead.
    const bound = cap.model === 'open' && !cap.include429 && this.plan.replay === undefined ? quotaBound(this.plan) : null;
    const ceiling = ceilingOf(cap, bound);
    const points: SearchPoint[] = [];
    let end: SearchEnd | null = null;
    let failure: string | undefined;
    try {
      while (end === null) {
        const next = nextStep({ ...cap, integer: cap.model === 'closed' }, points, ceiling);
        if (next.kind === 'done') {
          end = this.endOf(next.reason, next, ceiling, bound);
          break;
        }
        let judged = await this.step('search', next.load, cap.holdMs, rules);
        // A stall of a shared machine can fail a step or starve the generator once: a step that
        // did not pass is run once more before the search believes it (the first attempt stays
        // in the record, marked retried).
        if (judged !== null && judged.record.verdict !== 'pass') {
          this.markRetried(this.steps.length - 1);
          judged = await this.step('search', next.load, cap.holdMs, rules);
        }
        if (judged === null) break;
        if (judged.record.verdict === 'generator-bound') {
          const { lastPass } = bracketOf(points);
          const lag = judged.record.scheduleLagMs?.p99 ?? 0;
          end = {
            lastPass,
            firstFail: null,
            limitedBy: 'generator',
            atLeast: true,
            why: `generator-bound at ${show(next.load, this.searched)}: schedule lag p99 ${lag} ms > ${cap.maxLagMs} ms, rpcload could not send on time; add --workers or shards`,
          };
          break;
        }
        points.push({ load: next.load, pass: judged.record.verdict === 'pass' });
        await this.checkpoint(null, []);
      }
    } catch (err) {
      if (err instanceof RpcloadError) throw err;
      failure = describeError(err);
    }
    // A generator that could not keep up cannot confirm anything either.
    const confirmable = end !== null && end.lastPass !== null && end.limitedBy !== 'generator' && failure === undefined;
    const confirmation = confirmable ? await this.confirm(end!.lastPass!, rules) : null;
    const record = this.record(
      end,
      confirmation,
      slo.map((l) => l.expr),
    );
    const status: RunStatus = failure !== undefined ? 'failed' : this.options.signal.aborted || end === null ? 'aborted' : 'completed';
    const result = await this.write(status, record, confirmation?.thresholds ?? [], failure);
    const exitCode =
      status === 'aborted'
        ? ExitCode.interrupted
        : status === 'failed' ||
            record.ratePerS === null ||
            record.confirmation?.passed === false ||
            result.checks.some((c) => c.verdict === 'fail')
          ? ExitCode.failed
          : ExitCode.ok;
    return { result, record, path: this.path, exitCode };
  }

  /** The search's end in terms of the record. */
  private endOf(reason: string, bracket: CapacityBracket, ceiling: SearchCeiling | null, bound: QuotaBound | null): SearchEnd {
    const { lastPass, firstFail } = bracket;
    if (reason === 'ceiling' && ceiling !== null) {
      const quota = ceiling.reason === 'client quota' && bound !== null;
      return {
        lastPass,
        firstFail,
        limitedBy: quota ? 'client quota' : 'max',
        atLeast: true,
        why: quota ? quotaFinding(bound) : `the search's max (${show(ceiling.value, this.searched)}) was reached`,
      };
    }
    const decisive = this.steps.find(
      (s) => s.judged.record.kind === 'search' && s.judged.record.retried !== true && s.judged.record.load === firstFail,
    );
    const limitedBy = decisive?.judged.limit ?? 'none';
    if (reason === 'max steps' && firstFail === null)
      return { lastPass, firstFail, limitedBy: 'max', atLeast: true, why: `the search stopped after ${this.cap.maxSteps} steps` };
    return { lastPass, firstFail, limitedBy, atLeast: false, why: null };
  }

  /** Hold the found load longer; step down one tolerance at a time while that fails. */
  private async confirm(found: number, rules: StepRules): Promise<Confirmation | null> {
    if (this.cap.confirmMs === 0 || this.options.signal.aborted) return null;
    let load = found;
    for (let attempt = 1; attempt <= CONFIRM_ATTEMPTS; attempt++) {
      const judged = await this.step('confirm', load, this.cap.confirmMs, rules);
      if (judged === null) return null;
      const passed = judged.record.verdict === 'pass';
      if (passed || attempt === CONFIRM_ATTEMPTS) return { load, passed, found, step: judged.record, thresholds: judged.record.slo };
      const lower = roundLoad(load * (1 - this.cap.tolerance), this.cap.model === 'closed');
      if (lower >= load) return { load, passed, found, step: judged.record, thresholds: judged.record.slo };
      load = lower;
    }
    return null;
  }

  /** Run and judge one step; null when the search was interrupted during it. */
  private async step(kind: 'search' | 'confirm', load: number, holdMs: number, rules: StepRules): Promise<JudgedStep | null> {
    if (this.options.signal.aborted) return null;
    const { cap, plan } = this;
    const index = this.steps.length + 1;
    const name = kind === 'search' ? `step-${String(index).padStart(2, '0')}` : `confirm-${String(index).padStart(2, '0')}`;
    // A replay's load is a speed of the recording: its phases say the calls per second that makes.
    const perS = plan.replay === undefined ? load : load * replayBaseRatePerS(plan.replay);
    const phaseLoad: PhasePlan['load'] =
      cap.model === 'open' ? { kind: 'rate', fromPerS: perS, toPerS: perS } : { kind: 'concurrency', vus: load };
    const warmUp = cap.warmUpMs > 0 ? `${name} warm-up` : null;
    // Steps keep the profile's arrival process (its first phase's), so a Poisson workload is searched as Poisson.
    const arrivals = plan.phases[0]?.arrivals ?? 'uniform';
    const phases: PhasePlan[] = [
      ...(warmUp === null ? [] : [{ name: warmUp, durationMs: cap.warmUpMs, load: phaseLoad, arrivals }]),
      { name, durationMs: holdMs, load: phaseLoad, arrivals },
    ];
    const def: CapacityStepDefinition = {
      index,
      kind,
      model: cap.model,
      load,
      phase: name,
      warmUpPhase: warmUp,
      warmUpMs: cap.warmUpMs,
      holdMs,
    };
    // Every phase of a replay step plays the same window from its start, looping, at the step's speed.
    const stepPlan = { ...aimedAt(plan.replay === undefined ? plan : replayAtSpeed(plan, load), this.target), phases };
    // Each step listens on its own signal, relayed from the session's: the driver's listeners go
    // with the step instead of piling up on the session's signal.
    const stepAbort = new AbortController();
    const relay = (): void => stepAbort.abort();
    if (this.options.signal.aborted) relay();
    else this.options.signal.addEventListener('abort', relay, { once: true });
    try {
      return await this.runStep(def, stepPlan, phases, rules, stepAbort.signal);
    } finally {
      this.options.signal.removeEventListener('abort', relay);
    }
  }

  private async runStep(
    def: CapacityStepDefinition,
    stepPlan: Plan & { readonly target: string },
    phases: readonly PhasePlan[],
    rules: StepRules,
    signal: AbortSignal,
  ): Promise<JudgedStep | null> {
    const running = startLoad(stepPlan, {
      workers: this.options.workers ?? 1,
      signal,
      metrics: metricsReadOptions(this.options.metrics ?? null, this.plan),
    });
    if (this.endpoint !== null) {
      this.endpoint.follow(() => running.metrics());
      const { lastPass, firstFail } = this.bracket();
      this.endpoint.setCapacity({ stepIndex: def.index, stepLoad: def.load, bracketLow: lastPass, bracketHigh: firstFail });
    }
    this.options.onProgress?.({ kind: 'step-start', step: def, load: running, bracket: this.bracket() });
    const warmUpSkips = watchWarmUpSkips(running, def.warmUpMs);
    const finished = await running.finished().finally(() => warmUpSkips.stop());
    if (Number.isNaN(this.originEpochMs)) this.originEpochMs = running.clock.originEpochMs;
    const info = this.info('completed', undefined, running.clock.originEpochMs);
    const stepResult = buildRunResult({
      run: info,
      config: {},
      data: finished.data,
      dims: dimensionsOf(stepPlan),
      checks: [],
      thresholds: [],
      warnings: [],
    });
    // A replay's schedule is the recording's calls per second at the step's speed.
    const schedule = {
      skippedInHold: skippedInHold(finished.data.skipped, warmUpSkips.beforeHold()),
      scheduledPerS: this.plan.replay === undefined || def.model !== 'open' ? null : def.load * replayBaseRatePerS(this.plan.replay),
    };
    const judged = judgeStep(def, rules, finished.data, stepResult, schedule);
    if (finished.status === 'aborted') {
      this.steps.push({ judged, data: this.stepData(phases, stepResult, finished.data, running) });
      return null;
    }
    this.steps.push({ judged, data: this.stepData(phases, stepResult, finished.data, running) });
    this.options.onProgress?.({ kind: 'step-done', step: judged.record, bracket: this.bracket() });
    const { lastPass, firstFail } = this.bracket();
    this.endpoint?.setCapacity({ stepIndex: def.index, stepLoad: def.load, bracketLow: lastPass, bracketHigh: firstFail });
    return judged;
  }

  private markRetried(index: number): void {
    const entry = this.steps[index]!;
    entry.judged = { ...entry.judged, record: { ...entry.judged.record, retried: true } };
  }

  /** Search steps that count: retried attempts are superseded by their retry. */
  private searchSteps(): CapacityStep[] {
    return this.steps.map((s) => s.judged.record).filter((r) => r.kind === 'search' && r.retried !== true);
  }

  private stepData(phases: readonly PhasePlan[], stepResult: RunResult, data: StepData['data'], running: RunningLoad): StepData {
    return { phases: phases.map((p) => p.name), data, originEpochMs: running.clock.originEpochMs, checks: stepResult.checks };
  }

  private bracket(): CapacityBracket {
    return bracketOf(
      this.searchSteps()
        .filter((r) => r.verdict !== 'generator-bound')
        .map((r) => ({ load: r.load, pass: r.verdict === 'pass' })),
    );
  }

  private record(end: SearchEnd | null, confirmation: Confirmation | null, sloLines: readonly string[], running = false): CapacityRecord {
    const { cap } = this;
    const model = cap.model;
    const searchEnd = end ?? {
      ...this.bracket(),
      limitedBy: 'none' as const,
      atLeast: false,
      why: running ? 'the search is still running' : 'the search was interrupted',
    };
    const counted = this.steps.filter((s) => s.judged.record.retried !== true);
    const attempt = ({ judged }: (typeof counted)[number]): Attempt => ({
      kind: judged.record.kind,
      load: judged.record.load,
      verdict: judged.record.verdict,
      limit: judged.limit,
    });
    const found = capacityAnswer(
      searchEnd,
      counted.filter((s) => s.judged.record.kind === 'search').map(attempt),
      counted.filter((s) => s.judged.record.kind === 'confirm').map(attempt),
    );
    const answer = found.answer;
    const answerStep =
      (found.confirmed ? confirmation?.step : undefined) ?? this.searchSteps().find((r) => r.load === answer && r.verdict === 'pass');
    const replay = this.plan.replay;
    const ratePerS =
      answer === null
        ? null
        : model === 'closed'
          ? (answerStep?.achievedPerS ?? null)
          : replay === undefined
            ? answer
            : Math.round(answer * replayBaseRatePerS(replay) * 1000) / 1000;
    const search = this.searchSteps();
    const usl =
      model === 'closed'
        ? fitUsl(search.filter((s) => s.verdict !== 'generator-bound').map((s) => ({ n: s.load, x: s.achievedPerS })))
        : undefined;
    const decisive = found.decisive;
    const decisiveQuota =
      decisive === null || found.limitedBy !== 'client quota'
        ? null
        : (counted.find((s) => s.judged.record.kind === decisive.kind && s.judged.record.load === decisive.load && s.judged.limit !== null)
            ?.judged.quota ?? null);
    const searched: SearchedUnit = replay === undefined ? model : 'replay';
    const atOne = busiestAtOne(counted.map((s) => ({ load: s.judged.record.load, quota: s.judged.quota })));
    return {
      model,
      ratePerS,
      ...(model === 'closed' ? { concurrency: answer } : {}),
      ...(replay === undefined ? {} : { speed: answer }),
      atLeast: found.atLeast,
      bracket: [...found.bracket],
      limitedBy: found.limitedBy,
      finding: capacityFinding({
        searched,
        answer: found,
        ratePerS,
        steps: this.steps.map((s) => s.judged.record),
        quotaText: decisiveQuota === null ? null : quotaUseText(decisiveQuota, searched === 'replay' ? decisive!.load : null, atOne),
      }),
      slo: [
        ...sloLines,
        ...(model === 'open' ? [THROUGHPUT_LINE] : []),
        ...(cap.include429 ? [] : ['rate_limited < 1%', ...(replay !== undefined && model === 'open' ? [CLIENT_RATE_LINE] : [])]),
      ],
      confirmation:
        confirmation === null
          ? null
          : {
              load: confirmation.load,
              holdS: cap.confirmMs / 1000,
              passed: confirmation.passed,
              steppedDownFrom: confirmation.load === confirmation.found ? null : confirmation.found,
            },
      search: {
        start: cap.start,
        factor: cap.factor,
        tolerance: cap.tolerance,
        warmUpS: cap.warmUpMs / 1000,
        holdS: cap.holdMs / 1000,
        confirmS: cap.confirmMs / 1000,
        maxLagMs: cap.maxLagMs,
        include429: cap.include429,
      },
      steps: this.steps.map((s) => s.judged.record),
      usl,
    };
  }

  private info(status: RunStatus, failure: string | undefined, originEpochMs = this.originEpochMs): RunInfo {
    return {
      id: this.id,
      kind: 'capacity',
      label: this.options.label,
      profile: this.plan.name,
      startedAt: new Date(Number.isNaN(originEpochMs) ? this.startedAt.getTime() : originEpochMs).toISOString(),
      endedAt: status === 'running' ? null : new Date().toISOString(),
      status,
      failure,
      target: this.target.url,
      embeddedTarget: this.target.embedded,
      model: this.cap.model,
      workers: this.options.workers ?? 1,
      httpClient: this.plan.http.client,
      shards: 1,
      node: process.version,
      host: hostname(),
    };
  }

  private async checkpoint(end: SearchEnd | null, thresholds: readonly ThresholdResult[]): Promise<void> {
    await this.write(
      'running',
      this.record(
        end,
        null,
        (this.cap.slo ?? this.plan.thresholds).map((l) => l.expr),
        true,
      ),
      thresholds,
    );
  }

  private async write(
    status: RunStatus,
    record: CapacityRecord,
    thresholds: readonly ThresholdResult[],
    failure?: string,
  ): Promise<RunResult> {
    const result = buildCapacityResult({
      run: this.info(status, failure),
      plan: this.plan,
      steps: this.steps.map((s) => s.data),
      record,
      thresholds,
      warnings: this.warnings,
    });
    await writeResultFile(this.path, result);
    return result;
  }
}

interface Confirmation {
  readonly load: number;
  readonly passed: boolean;
  /** The load the search found (confirmation started there). */
  readonly found: number;
  readonly step: CapacityStep;
  readonly thresholds: readonly ThresholdResult[];
}

function ceilingOf(cap: CapacityPlan, bound: QuotaBound | null): SearchCeiling | null {
  const quota: SearchCeiling | null = bound === null ? null : { value: bound.searchablePerS, reason: 'client quota' };
  const max: SearchCeiling | null = cap.max === null ? null : { value: cap.max, reason: 'max' };
  if (quota === null) return max;
  if (max === null) return quota;
  return max.value <= quota.value ? max : quota;
}
