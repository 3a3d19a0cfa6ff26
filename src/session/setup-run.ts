/**
 * Setup and teardown: their steps run once, by their client, against the run's target, as a load
 * of their own — one iteration of one client on its own recorder — so their requests never enter
 * the load's figures or thresholds, and every rule of the load (tokens, TLS, signing, flows with
 * `save` and `expect`) holds for them as it does there. Setup keeps the values its steps saved:
 * the `{{setup.NAME}}` of every later template. A step that does not succeed (an `expect` unmet,
 * an error, no reply) fails it, with the reason.
 */
import { RunClock } from '../driver/run-clock.ts';
import { runLoad } from '../driver/run-load.ts';
import type { SetupRecord } from '../contract/result-schema.ts';
import { describeError, RpcloadError } from '../errors.ts';
import { createLatencyHistogram, decodeHistogram, percentilesMs } from '../metrics/hdr.ts';
import { Recorder } from '../metrics/recorder.ts';
import { iterationsLoad } from '../profile/phase-load.ts';
import type { Plan, SetupPlan } from '../profile/plan.ts';
import { dimensionsOf } from './recorder-dimensions.ts';

/** The values of `--setup-values FILE` (setup ran elsewhere, `rpcload setup`), and its path. */
export interface SetupValuesFile {
  readonly file: string;
  readonly values: Readonly<Record<string, unknown>>;
}

/** What setup or teardown came to. */
export interface SetupOutcome {
  readonly record: SetupRecord;
  /** The values its steps saved (setup: `{{setup.NAME}}`); empty when it failed. */
  readonly values: Readonly<Record<string, unknown>>;
}

/** The plan that runs setup's (or teardown's) steps: one iteration of its client, no warm-up, one connection. */
function stepsPlan(
  plan: Plan & { readonly target: string },
  which: 'setup' | 'teardown',
  steps: SetupPlan,
): Plan & { readonly target: string } {
  return {
    ...plan,
    clients: [plan.clients[steps.client]!],
    scenarios: [{ name: which, weight: 1, steps: steps.steps }],
    workloads: [
      {
        name: which,
        clients: [{ index: 0, weight: 1 }],
        scenarios: [{ index: 0, weight: 1 }],
        startAfterMs: 0,
        phases: [0],
      },
    ],
    phases: [{ name: which, workload: 0, durationMs: steps.timeoutMs, load: iterationsLoad(1), arrivals: 'uniform' }],
    data: [],
    thresholds: [],
    setup: null,
    teardown: null,
    http: { ...plan.http, connections: 1, preconnect: false, warmUp: false },
  };
}

/**
 * Run `which` (the plan's setup or teardown) against `plan.target`. Resolves with its record and
 * the values it saved; never throws for what the target answered (that is a failed record), only
 * for a configuration error (no token for its client) when `strict`.
 */
export async function runSetupSteps(
  plan: Plan & { readonly target: string },
  which: 'setup' | 'teardown',
  setupValues: Readonly<Record<string, unknown>> | null,
  signal: AbortSignal,
): Promise<SetupOutcome> {
  const steps = which === 'setup' ? plan.setup! : plan.teardown!;
  const client = plan.clients[steps.client]!.id;
  const own = stepsPlan(plan, which, steps);
  const recorder = new Recorder(dimensionsOf(own), { rateLimit: null });
  let saved: Readonly<Record<string, unknown>> | null = null;
  let failure: string | null = null;
  try {
    await runLoad({
      plan: own,
      baseUrl: plan.target,
      recorder,
      clock: new RunClock(),
      signal,
      setupValues,
      onIterationDone: (vars) => (saved = vars ?? {}),
    });
  } catch (err) {
    failure = err instanceof RpcloadError ? err.message : describeError(err);
  }
  const data = recorder.serialize();
  const outcomes = { ...data.overall.outcomes };
  const requests = Object.values(outcomes).reduce((sum, n) => sum + n, 0);
  const failed = Object.entries(outcomes).find(([outcome]) => outcome !== 'success');
  const reason =
    failure ??
    (signal.aborted
      ? 'interrupted'
      : failed !== undefined
        ? `a step ended ${failed[0]}${firstDetail(data.recentErrors)}`
        : saved === null
          ? `its steps did not finish within ${steps.timeoutMs / 1000} s`
          : null);
  const record: SetupRecord = {
    client,
    status: reason === null ? 'ok' : signal.aborted ? 'skipped' : 'failed',
    ...(reason === null ? {} : { reason }),
    requests,
    outcomes,
    latencyMs: percentilesMs(decodeHistogram(data.overall.latency)),
    saved: reason === null ? [...steps.saves] : [],
  };
  return { record, values: reason === null ? (saved ?? {}) : {} };
}

/** The first recorded error's detail, as ` (…)`, or nothing. */
function firstDetail(errors: readonly { readonly detail: string }[]): string {
  const detail = errors.find((e) => e.detail !== '')?.detail;
  return detail === undefined ? '' : ` (${detail})`;
}

/** A setup or teardown that never ran: skipped, with the reason. */
export function skippedSteps(plan: Plan, which: 'setup' | 'teardown', reason: string, fromFile?: string): SetupRecord {
  const steps = which === 'setup' ? plan.setup! : plan.teardown!;
  return {
    client: plan.clients[steps.client]?.id ?? '',
    status: 'skipped',
    reason,
    requests: 0,
    outcomes: {},
    latencyMs: percentilesMs(createLatencyHistogram()),
    saved: fromFile === undefined ? [] : [...steps.saves],
    ...(fromFile === undefined ? {} : { fromFile }),
  };
}
