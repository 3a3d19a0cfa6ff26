/**
 * `rpcload capacity`: the highest rate (open model) or concurrency (closed model) the target
 * sustains within its SLO — of one workload, while the profile's others run beside it as
 * configured. Opens the target once, then runs the search step by step — each step a real load
 * run of a warm-up phase and a measured hold, judged on its own figures — bounded by
 * the clients' quotas and by the generator's own schedule lag, confirms the answer with a longer
 * hold (stepping down when that fails), and writes one result file with every step (a checkpoint
 * after each step, so an interrupted search still leaves its steps behind). The session frame
 * does the rest: outputs, metrics endpoint, target, checkpoints, the final write and its fallback.
 */
import type { CapacityRecord } from '../../contract/capacity-schema.ts';
import type { CapacityBracket, CapacityProgress, CapacityStepDefinition } from '../../contract/live-view.ts';
import type { RunResult, RunStatus, ThresholdResult } from '../../contract/result-schema.ts';
import { describeError, ExitCode, RpcloadError } from '../../errors.ts';
import type { CapacityPlan } from '../../profile/capacity-settings.ts';
import type { Plan } from '../../profile/plan.ts';
import { replayBaseRatePerS } from '../../profile/replay-plan.ts';
import {
  metricsReadOptions,
  openMetricsEndpoint,
  type MetricsEndpoint,
  type MetricsOptions,
} from '../../prometheus/metrics-endpoint.ts';
import { SessionFrame } from '../session-frame.ts';
import { insecureWarning, openTarget, type Target } from '../target.ts';
import { searchEndOf, type SearchEnd } from './capacity-answer.ts';
import { showLoad } from './capacity-finding.ts';
import { capacityRecord, type ConfirmationOutcome } from './capacity-record.ts';
import { buildCapacityResult, type StepData } from './capacity-result.ts';
import { quotaBound, type QuotaBound } from './client-quota.ts';
import type { JudgedStep, StepRules } from './judge-step.ts';
import { runStep } from './run-step.ts';
import { bracketOf, nextStep, roundLoad, type SearchCeiling, type SearchPoint } from './search.ts';
import { searchSetup, type SearchedWorkload, type SearchSetup } from './searched-workload.ts';
import { stepPlan } from './step-plan.ts';

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
  /** Where the result file was written: the path asked for, or a fallback when that failed at the end. */
  readonly path: string;
  /** Why the result file is not at the path asked for; null when it is. */
  readonly writeProblem: string | null;
  readonly exitCode: ExitCode;
  /** Resolves when the metrics endpoint has closed after its linger (at once without `--metrics-listen`): await it after reporting. */
  readonly metricsClosed: Promise<void>;
}

/** Confirmation attempts, each one tolerance lower than the last, before giving up. */
const CONFIRM_ATTEMPTS = 3;

export async function capacitySession(options: CapacitySessionOptions): Promise<CapacitySessionResult> {
  const { plan } = options;
  const setup = searchSetup(plan);
  const insecure = insecureWarning(plan.target, plan.http.insecure);
  const frame = await SessionFrame.prepare({
    kind: 'capacity',
    profile: plan.name,
    outPath: options.outPath,
    fileName: `${plan.name}-capacity`,
    label: options.label,
    plan,
    warnings: insecure === null ? [] : [insecure],
    warn: options.warn,
    signal: options.signal,
  });
  // Before any load: a port in use is a bad flag, found before the target is even opened.
  const endpoint =
    options.metrics == null
      ? null
      : await openMetricsEndpoint(options.metrics, { runId: frame.id, profile: plan.name, shard: '1/1' }, true);
  const { value, closed } = await frame.serve(
    endpoint,
    () => openTarget(plan),
    (target) => new CapacitySearch(options, setup, frame, endpoint, target!).run(),
  );
  return { ...value, metricsClosed: closed };
}

/** The confirmation's outcome, with the SLO as judged on its last attempt (the file's thresholds). */
interface Confirmation extends ConfirmationOutcome {
  readonly thresholds: readonly ThresholdResult[];
}

class CapacitySearch {
  private readonly cap: CapacityPlan;
  /** The plan searched, with the capacity settings the search runs with. */
  private readonly plan: Plan;
  private readonly steps: { judged: JudgedStep; readonly data: StepData }[] = [];
  private originEpochMs = Number.NaN;

  constructor(
    private readonly options: CapacitySessionOptions,
    private readonly setup: SearchSetup,
    private readonly frame: SessionFrame,
    private readonly endpoint: MetricsEndpoint | null,
    private readonly target: Target,
  ) {
    this.cap = setup.cap;
    this.plan = { ...options.plan, capacity: setup.cap };
  }

  private get searched(): SearchedWorkload {
    return this.setup.searched;
  }

  private get rules(): StepRules {
    const { limit, windowMs } = this.plan.rateLimit;
    const { name, beside, index } = this.searched;
    const clients = this.plan.workloads[index]!.clients.map((c) => this.plan.clients[c.index]!.id);
    // A replay's callers send what the recording says: each one's rate is judged against its quota.
    return {
      slo: this.setup.slo,
      include429: this.cap.include429,
      maxLagMs: this.cap.maxLagMs,
      quota: { limit, windowMs },
      perClientQuota: this.searched.unit === 'replay',
      workload: { name, beside, clients },
    };
  }

  /** A load in the searched unit: "40/s", "8 users", "2.5×". */
  private show(load: number): string {
    return showLoad(load, this.searched.unit);
  }

  async run(): Promise<Omit<CapacitySessionResult, 'metricsClosed'>> {
    let end: SearchEnd | null = null;
    let failure: string | undefined;
    try {
      end = await this.search();
    } catch (err) {
      // A configuration error (no client gets a token) is the user's, not a finding.
      if (err instanceof RpcloadError) throw err;
      failure = describeError(err);
    }
    // A generator that could not keep up cannot confirm anything either.
    const confirmable = end !== null && end.lastPass !== null && end.limitedBy !== 'generator' && failure === undefined;
    const confirmation = confirmable ? await this.confirm(end!.lastPass!) : null;
    const record = this.record(end, confirmation);
    const status: RunStatus =
      failure !== undefined ? 'failed' : this.options.signal.aborted || end === null ? 'aborted' : 'completed';
    const result = this.result(status, record, confirmation?.thresholds ?? [], failure);
    const judged =
      status === 'aborted'
        ? ExitCode.interrupted
        : status === 'failed' ||
            record.ratePerS === null ||
            record.confirmation?.passed === false ||
            result.checks.some((c) => c.verdict === 'fail')
          ? ExitCode.failed
          : ExitCode.ok;
    return { result, record, ...(await this.frame.writeFinal(result, judged)) };
  }

  /** Grow, then bisect, until the search ends; null when it was interrupted. A checkpoint after each step. */
  private async search(): Promise<SearchEnd | null> {
    const { cap } = this;
    // A replay's mix of callers is the recording's: its quotas are judged in the steps, not as a bound worked out ahead.
    const bound =
      cap.model === 'open' && !cap.include429 && this.searched.unit !== 'replay'
        ? quotaBound(this.plan, this.searched.index)
        : null;
    const ceiling = ceilingOf(cap, bound);
    const points: SearchPoint[] = [];
    for (;;) {
      const next = nextStep({ ...cap, integer: cap.model === 'closed' }, points, ceiling);
      if (next.kind === 'done') {
        const decisive = this.steps.find(
          (s) =>
            s.judged.record.kind === 'search' &&
            s.judged.record.retried !== true &&
            s.judged.record.load === next.firstFail,
        );
        return searchEndOf(next, ceiling, bound, decisive?.judged.limit ?? null, cap.maxSteps, (load) =>
          this.show(load),
        );
      }
      let judged = await this.step('search', next.load, cap.holdMs);
      // A stall of a shared machine can fail a step or starve the generator once: a step that
      // did not pass is run once more before the search believes it (the first attempt stays
      // in the record, marked retried).
      if (judged !== null && judged.record.verdict !== 'pass') {
        this.markRetried(this.steps.length - 1);
        judged = await this.step('search', next.load, cap.holdMs);
      }
      if (judged === null) return null;
      if (judged.record.verdict === 'generator-bound') {
        const lag = judged.record.scheduleLagMs?.p99 ?? 0;
        const late = `schedule lag p99 ${lag} ms > ${cap.maxLagMs} ms, rpcload could not send on time`;
        const why = `generator-bound at ${this.show(next.load)}: ${late}; add --workers or shards`;
        return { lastPass: bracketOf(points).lastPass, firstFail: null, limitedBy: 'generator', atLeast: true, why };
      }
      points.push({ load: next.load, pass: judged.record.verdict === 'pass' });
      await this.frame.checkpoint(this.result('running', this.record(null, null, true), []));
    }
  }

  /** Hold the found load longer; step down one tolerance at a time while that fails. */
  private async confirm(found: number): Promise<Confirmation | null> {
    if (this.cap.confirmMs === 0 || this.options.signal.aborted) return null;
    let load = found;
    for (let attempt = 1; attempt <= CONFIRM_ATTEMPTS; attempt++) {
      const judged = await this.step('confirm', load, this.cap.confirmMs);
      if (judged === null) return null;
      const passed = judged.record.verdict === 'pass';
      const lower = roundLoad(load * (1 - this.cap.tolerance), this.cap.model === 'closed');
      if (passed || attempt === CONFIRM_ATTEMPTS || lower >= load)
        return { load, passed, found, thresholds: judged.record.slo };
      load = lower;
    }
    return null;
  }

  /** Run and judge one step; null when the search was interrupted during it. */
  private async step(kind: 'search' | 'confirm', load: number, holdMs: number): Promise<JudgedStep | null> {
    if (this.options.signal.aborted) return null;
    const step = stepPlan(this.plan, this.cap, this.setup, kind, this.steps.length + 1, load, holdMs);
    // Each step listens on its own signal, relayed from the session's: the driver's listeners go
    // with the step instead of piling up on the session's signal.
    const stepAbort = new AbortController();
    const relay = (): void => stepAbort.abort();
    if (this.options.signal.aborted) relay();
    else this.options.signal.addEventListener('abort', relay, { once: true });
    try {
      const outcome = await runStep(
        step,
        {
          target: this.target,
          workers: this.options.workers ?? 1,
          metrics: metricsReadOptions(this.options.metrics ?? null, this.plan),
          rules: this.rules,
          besideOf: this.searched.beside ? this.searched.name : null,
          runInfo: (startedAtEpochMs) => this.frame.runInfo({ ...this.runParts('completed'), startedAtEpochMs }),
          started: (running) => {
            this.endpoint?.follow(() => running.metrics());
            this.tellBracket(step.def);
            this.options.onProgress?.({ kind: 'step-start', step: step.def, load: running, bracket: this.bracket() });
          },
        },
        stepAbort.signal,
      );
      if (Number.isNaN(this.originEpochMs)) this.originEpochMs = outcome.data.originEpochMs;
      this.steps.push({ judged: outcome.judged, data: outcome.data });
      if (outcome.interrupted) return null;
      this.options.onProgress?.({ kind: 'step-done', step: outcome.judged.record, bracket: this.bracket() });
      this.tellBracket(step.def);
      return outcome.judged;
    } finally {
      this.options.signal.removeEventListener('abort', relay);
    }
  }

  /** The metrics endpoint's capacity gauges: the step under way and the bracket so far. */
  private tellBracket(def: CapacityStepDefinition): void {
    const { lastPass, firstFail } = this.bracket();
    this.endpoint?.setCapacity({
      stepIndex: def.index,
      stepLoad: def.load,
      bracketLow: lastPass,
      bracketHigh: firstFail,
    });
  }

  private markRetried(index: number): void {
    const entry = this.steps[index]!;
    entry.judged = { ...entry.judged, record: { ...entry.judged.record, retried: true } };
  }

  /** The bracket of the search steps that count (retried attempts are superseded by their retry). */
  private bracket(): CapacityBracket {
    return bracketOf(
      this.steps
        .map((s) => s.judged.record)
        .filter((r) => r.kind === 'search' && r.retried !== true && r.verdict !== 'generator-bound')
        .map((r) => ({ load: r.load, pass: r.verdict === 'pass' })),
    );
  }

  private record(end: SearchEnd | null, confirmation: Confirmation | null, running = false): CapacityRecord {
    const replay = this.plan.workloads[this.searched.index]!.replay;
    return capacityRecord({
      cap: this.cap,
      replayPerSpeed: replay === undefined ? null : replayBaseRatePerS(replay),
      end: end ?? {
        ...this.bracket(),
        limitedBy: 'none',
        atLeast: false,
        why: running ? 'the search is still running' : 'the search was interrupted',
      },
      steps: this.steps.map((s) => s.judged),
      confirmation,
      sloLines: this.setup.slo.map((l) => l.expr),
      workload: { name: this.searched.name, named: this.searched.named, rateNoun: this.searched.rateNoun },
    });
  }

  private runParts(status: RunStatus, failure?: string): Parameters<SessionFrame['runInfo']>[0] {
    return {
      status,
      failure,
      target: this.target,
      ...(Number.isNaN(this.originEpochMs) ? {} : { startedAtEpochMs: this.originEpochMs }),
      model: this.cap.model,
      workers: this.options.workers ?? 1,
      httpClient: this.plan.http.client,
    };
  }

  /** The result file as it stands: every step so far, the record, and a failed checkpoint said among the warnings. */
  private result(
    status: RunStatus,
    record: CapacityRecord,
    thresholds: readonly ThresholdResult[],
    failure?: string,
  ): RunResult {
    const checkpointProblem = this.frame.checkpointProblem();
    return buildCapacityResult({
      run: this.frame.runInfo(this.runParts(status, failure)),
      plan: this.plan,
      workload: this.searched.index,
      steps: this.steps.map((s) => s.data),
      record,
      thresholds,
      warnings: checkpointProblem === null ? this.frame.warnings : [...this.frame.warnings, checkpointProblem],
    });
  }
}

function ceilingOf(cap: CapacityPlan, bound: QuotaBound | null): SearchCeiling | null {
  const quota: SearchCeiling | null = bound === null ? null : { value: bound.searchablePerS, reason: 'client quota' };
  const max: SearchCeiling | null = cap.max === null ? null : { value: cap.max, reason: 'max' };
  if (quota === null) return max;
  if (max === null) return quota;
  return max.value <= quota.value ? max : quota;
}
