/** What `rpcload run` does once its flags are parsed; loaded only when it runs (run.ts declares the flags). */
import type { PlanOverrides } from '../profile/build-plan.ts';
import { RpcloadError } from '../errors.ts';
import { inlinePlan, wantsInlineProfile, type InlineProfileFlags } from '../profile/inline-profile.ts';
import { defaultProfilePath, loadPlan } from '../profile/load-profile.ts';
import type { ArrivalProcess, HttpClientName, Plan, ReplicaAffinity, WorkloadPlan } from '../profile/plan.ts';
import { prepareReplays } from '../profile/replay-plan.ts';
import { readSetupValues } from '../session/setup-session.ts';
import { replaySettingsOf, type ReplayFlags } from '../profile/replay-settings.ts';
import type { ConcurrencyLoad, RateLoad, Stage } from '../profile/phase-load.ts';
import { renderResultJunit, writeJunitFile } from '../results/result-junit.ts';
import { renderSummaryTable } from '../results/summary-table.ts';
import { resolveShardOptions, type ShardFlags } from '../session/distributed/shard-spec.ts';
import { STDOUT_PATH } from '../result-file/write-result.ts';
import { DEFAULT_HTTP_DEBUG_EXCHANGES, HttpDebug } from '../driver/http-debug.ts';
import { checkMetricsTags } from '../prometheus/metrics-endpoint.ts';
import { resolveOtlpOptions } from '../prometheus/otlp-push.ts';
import { runSession } from '../session/run-session.ts';
import { createRunView } from '../ui/create-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { redactSecrets } from '../util/redact.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { setExitCode } from './exit.ts';
import { withInterrupt } from './signals.ts';
import { metricsOptionsOf, type MetricsFlags } from './metrics-flags.ts';
import { checkOutputFlags } from './output-flags.ts';
import { transportOverridesOf } from './transport-identity.ts';
import type { TransportFlags } from './transport-flags.ts';

export interface RunFlags extends InlineProfileFlags, ShardFlags, MetricsFlags, TransportFlags, ReplayFlags {
  target?: string;
  rate?: RateLoad;
  stages?: Stage[];
  arrivals?: ArrivalProcess;
  requests?: number;
  ca?: string;
  insecure?: boolean;
  httpClient?: HttpClientName;
  threshold?: string[];
  concurrency?: ConcurrencyLoad;
  duration?: number;
  clients?: number;
  timeout?: number;
  workers?: number;
  /** `--http-debug[=N]`: true for a bare flag. */
  httpDebug?: number | true;
  out?: string;
  outSamples?: string;
  ui: UiMode;
  json?: boolean;
  label?: string;
  junit?: string;
  replica?: string[];
  replicaAffinity?: ReplicaAffinity;
  otlpEndpoint?: string;
  otlpInterval?: number;
  workload?: string;
  setupValues?: string;
}

/** The profile overrides the flags ask for (every reader of PlanOverrides takes undefined for absent). */
function overridesOf(flags: RunFlags): PlanOverrides {
  return {
    target: flags.target,
    load: flags.rate ?? flags.concurrency,
    durationMs: flags.duration,
    clients: flags.clients,
    requestTimeoutMs: flags.timeout,
    stages: flags.stages,
    arrivals: flags.arrivals,
    requests: flags.requests,
    ca: flags.ca,
    insecure: flags.insecure,
    thresholds: flags.threshold,
    replicas: flags.replica,
    replicaAffinity: flags.replicaAffinity,
    ...transportOverridesOf(flags),
    httpClient: flags.httpClient,
    replay: flags.replay,
    workload: flags.workload,
  };
}

/**
 * The plan: the profile file, a profile built from flags (--method, --client, --target without a
 * file), or the demo; for a replay (--replay, or the profile's replay section) its recording
 * scanned and its calls in place of the scenarios (-n and --duration then bound the replay).
 */
async function planOf(profilePath: string | undefined, flags: RunFlags): Promise<Plan> {
  if (flags.replay !== undefined) {
    const loadFlag = (['rate', 'concurrency', 'stages'] as const).find((key) => flags[key] !== undefined);
    if (loadFlag !== undefined)
      throw new RpcloadError(
        'bad_flag',
        `--${loadFlag}: a replay sends the recording's calls at their own times; use --speed`,
      );
  }
  // A replay's -n and --duration are its own, not the phases' (which it replaces).
  const untimed = await profilePlanOf(profilePath, { ...flags, requests: undefined, duration: undefined });
  const chosen = flagsWorkload(untimed, flags.workload);
  if (chosen?.replaySettings !== undefined)
    return prepareReplays(untimed, (w) =>
      w === chosen ? replaySettingsOf(flags, w.replaySettings)! : w.replaySettings!,
    );
  // The replay flags change a replay workload only.
  replaySettingsOf({ ...flags, requests: undefined, duration: undefined }, undefined);
  const timed =
    flags.requests === undefined && flags.duration === undefined ? untimed : await profilePlanOf(profilePath, flags);
  return prepareReplays(timed);
}

/** The workload the load flags change: the one --workload names, else the only one; undefined when the plan has several. */
function flagsWorkload(plan: Plan, name: string | undefined): WorkloadPlan | undefined {
  return name === undefined
    ? plan.workloads.length === 1
      ? plan.workloads[0]
      : undefined
    : plan.workloads.find((w) => w.name === name);
}

async function profilePlanOf(profilePath: string | undefined, flags: RunFlags): Promise<Plan> {
  if (profilePath === undefined && wantsInlineProfile(flags)) {
    // A --client-pattern already made --clients clients; --clients otherwise takes the first N --clients.
    return inlinePlan(flags, {
      ...overridesOf(flags),
      clients: flags.clientPattern === undefined ? flags.clients : undefined,
    });
  }
  const inlineOnly = INLINE_ONLY_FLAGS.find(([key]) => flags[key] !== undefined);
  if (inlineOnly)
    throw new RpcloadError(
      'bad_flag',
      `${inlineOnly[1]}: builds a profile from flags; it cannot be combined with a profile file`,
    );
  return loadPlan(profilePath ?? defaultProfilePath(), overridesOf(flags));
}

/** Flags that only describe a profile built from flags. */
const INLINE_ONLY_FLAGS = [
  ['method', '--method'],
  ['paginated', '--paginated'],
  ['client', '--client'],
  ['clientPattern', '--client-pattern'],
  ['secretEnv', '--secret-env'],
  ['tokenMethod', '--token-method'],
  ['clientAuth', '--client-auth'],
] as const satisfies readonly (readonly [keyof RunFlags, string])[];

/** `--http-debug[=N]`: the printer of the first N exchanges, to stderr; null without the flag. */
function httpDebugOf(flags: RunFlags): HttpDebug | null {
  if (flags.httpDebug === undefined) return null;
  if ((flags.workers ?? 1) > 1)
    throw new RpcloadError('bad_flag', '--http-debug: prints from one thread; drop --workers');
  const limit = flags.httpDebug === true ? DEFAULT_HTTP_DEBUG_EXCHANGES : flags.httpDebug;
  return new HttpDebug(limit, (text) => process.stderr.write(text));
}

/** `rpcload run [profile]`: plan, run, write the result file, print the summary. */
export async function runAction(profilePath: string | undefined, flags: RunFlags): Promise<void> {
  const metrics = metricsOptionsOf(flags);
  const otlp = resolveOtlpOptions({ endpoint: flags.otlpEndpoint, intervalMs: flags.otlpInterval }, process.env);
  if (otlp === null && flags.otlpInterval !== undefined)
    throw new RpcloadError('bad_flag', '--otlp-interval: needs --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)');
  await checkOutputFlags(flags, profilePath ?? (wantsInlineProfile(flags) ? undefined : defaultProfilePath()));
  const plan = await planOf(profilePath, flags);
  checkMetricsTags(metrics?.tags, plan);
  const httpDebug = httpDebugOf(flags);
  const { shard, startAtEpochMs } = resolveShardOptions(flags, process.env, plan);
  const setupValues = flags.setupValues === undefined ? null : await readSetupValues(flags.setupValues, plan);
  if (shard !== null && plan.setup !== null && setupValues === null)
    throw new RpcloadError(
      'bad_flag',
      '--shard: the profile has a setup section, which every shard would run: run `rpcload setup PROFILE --out values.json` once, then each shard with --setup-values values.json (and `rpcload teardown` after)',
    );
  // With the result on stdout, everything else a user reads goes to stderr.
  const toStdout = flags.out === STDOUT_PATH;
  const say = toStdout ? process.stderr : process.stdout;
  const mode = toStdout
    ? 'none'
    : resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
  const session = await withInterrupt((signal, stop) =>
    runSession({
      plan,
      workers: flags.workers ?? 1,
      shard,
      startAtEpochMs,
      outPath: flags.out,
      samplesPath: flags.outSamples,
      label: flags.label,
      metrics,
      otlp,
      createView: (source) => createRunView(mode, source, { onQuit: stop }),
      signal,
      warn: (warning) => process.stderr.write(`warning: ${warning}\n`),
      setupValues,
      httpDebug,
    }),
  );
  const { result, path } = session;
  if (flags.junit !== undefined) await writeJunitFile(flags.junit, renderResultJunit(result));
  if (flags.json && !toStdout) {
    const { run, summary, byMethod, thresholds, checks, warnings } = result;
    const json = redactSecrets({ resultFile: path, run, summary, byMethod, thresholds, checks, warnings });
    say.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    say.write(
      `${renderSummaryTable(result, { color: colourEnabled(say) })}\nresult file: ${toStdout ? 'stdout' : path}\n`,
    );
  }
  if (session.writeProblem !== null) process.stderr.write(`warning: ${session.writeProblem}\n`);
  setExitCode(session.exitCode);
  // --metrics-linger: the summary is out; keep serving the final figures for the last scrape.
  await session.metricsClosed;
}
