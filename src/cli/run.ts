/** `rpcload run [profile]` — a load test; writes one result file. */
import { Option, type Command } from 'commander';
import type { PlanOverrides } from '../profile/build-plan.ts';
import { RpcloadError } from '../errors.ts';
import { inlinePlan, wantsInlineProfile, type InlineProfileFlags } from '../profile/inline-profile.ts';
import { defaultProfilePath, loadPlan } from '../profile/load-profile.ts';
import type { ArrivalProcess, HttpClientName, Plan, ReplicaAffinity } from '../profile/plan.ts';
import { prepareReplay } from '../profile/replay-plan.ts';
import { replaySettingsOf, type ReplayFlags } from '../profile/replay-settings.ts';
import type { ConcurrencyLoad, RateLoad, Stage } from '../profile/phase-load.ts';
import { renderResultJunit, writeJunitFile } from '../results/result-junit.ts';
import { renderSummaryTable } from '../results/summary-table.ts';
import { resolveShardOptions, type ShardFlags } from '../session/distributed/shard-spec.ts';
import { STDOUT_PATH } from '../result-file/write-result.ts';
import { resolveOtlpOptions } from '../prometheus/otlp-push.ts';
import { runSession } from '../session/run-session.ts';
import { createRunView } from '../ui/create-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { redactSecrets } from '../util/redact.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { setExitCode } from './exit.ts';
import {
  caFile,
  collect,
  concurrencySpec,
  durationMs,
  httpClientName,
  httpUrl,
  oneOf,
  positiveInt,
  positiveNumber,
  rateSpec,
  replicaUrl,
  stagesSpec,
} from './parsers.ts';
import { withInterrupt } from './signals.ts';
import { addMetricsOptions, metricsOptionsOf, type MetricsFlags } from './metrics-flags.ts';
import { checkOutputFlags } from './output-flags.ts';
import { addTransportOptions, transportOverridesOf, type TransportFlags } from './transport-flags.ts';

interface RunFlags extends InlineProfileFlags, ShardFlags, MetricsFlags, TransportFlags, ReplayFlags {
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
      throw new RpcloadError('bad_flag', `--${loadFlag}: a replay sends the recording's calls at their own times; use --speed`);
  }
  // A replay's -n and --duration are its own, not the phases' (which it replaces).
  const untimed = await profilePlanOf(profilePath, { ...flags, requests: undefined, duration: undefined });
  const settings = replaySettingsOf(flags, untimed.replaySettings);
  if (settings !== null) return prepareReplay(untimed, settings);
  return flags.requests === undefined && flags.duration === undefined ? untimed : profilePlanOf(profilePath, flags);
}

async function profilePlanOf(profilePath: string | undefined, flags: RunFlags): Promise<Plan> {
  if (profilePath === undefined && wantsInlineProfile(flags)) {
    // A --client-pattern already made --clients clients; --clients otherwise takes the first N --clients.
    return inlinePlan(flags, { ...overridesOf(flags), clients: flags.clientPattern === undefined ? flags.clients : undefined });
  }
  const inlineOnly = INLINE_ONLY_FLAGS.find(([key]) => flags[key] !== undefined);
  if (inlineOnly)
    throw new RpcloadError('bad_flag', `${inlineOnly[1]}: builds a profile from flags; it cannot be combined with a profile file`);
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

export function registerRunCommand(program: Command): void {
  const command = program
    .command('run')
    .description(
      'run a load test from a profile, or from flags alone (--target URL --client ID:SECRET --method NAME); without a target, against the embedded reference server',
    )
    .argument(
      '[profile]',
      'profile file (default: the demo profile, profiles/demo.json, unless --method/--client/--target describe the load)',
    )
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl)
    .addOption(
      new Option('--rate <n>', "arrivals per second, or FROM:TO for a linear ramp: one phase instead of the profile's phases")
        .argParser(rateSpec)
        .conflicts('concurrency'),
    )
    .option('--concurrency <n>', "virtual users: one closed-model phase instead of the profile's phases", concurrencySpec)
    .option('--duration <duration>', 'total duration, e.g. 30s or 2m', durationMs)
    .addOption(
      new Option(
        '--stages <list>',
        'open-model stages DURATION:RATE,… each ramping from the previous rate (0 first), e.g. 30s:50,2m:50,30s:0',
      )
        .argParser(stagesSpec)
        .conflicts(['rate', 'concurrency', 'duration']),
    )
    .option(
      '--arrivals <process>',
      'open model: arrivals evenly spaced (uniform) or a Poisson process (poisson) at the rate, for every phase',
      oneOf(['uniform', 'poisson'] as const),
    )
    .option(
      '-n, --requests <n>',
      'stop after N arrivals at a constant --rate (N requests when each is one unpaginated call); with --replay: the first N calls',
      positiveInt,
    )
    .option(
      '--clients <n>',
      'number of client IDs: a pattern makes N (more or fewer than the profile says), a list keeps its first N',
      positiveInt,
    )
    .option('--method <name[:json][@weight]>', 'without a profile: a method to call, with JSON args and a weight (repeatable)', collect)
    .option('--paginated <name>', 'without a profile: a method whose next cursors are walked (repeatable)', collect)
    .option('--client <id:secret>', 'without a profile: client credentials (repeatable)', collect)
    .option(
      '--client-pattern <pattern:secret>',
      'without a profile: --clients N clients (default 10) of an ID pattern, e.g. app-{n}:SECRET',
    )
    .option('--secret-env <var>', 'environment variable holding the secret of --client IDs / --client-pattern given without :SECRET')
    .option('--token-method <name>', 'without a profile: token request method (default auth.token)')
    .option('--client-auth <method>', 'without a profile: client authentication, post or basic', oneOf(['post', 'basic'] as const))
    .option('--threshold <expr>', 'pass/fail expression like "p95 < 200ms" or "error_rate < 1%" (repeatable)', collect)
    .option(
      '--replica <url>',
      'spread the load over this replica of the API, reached directly (repeatable; tokens still come from the target)',
      (value: string, previous: string[] | undefined) => collect(replicaUrl(value), previous),
    )
    .option(
      '--replica-affinity <mode>',
      'with --replica: a replica per request in turn (request, default), or one replica per client (client)',
      oneOf(['request', 'client'] as const),
    )
    .option(
      '--replay <file>',
      "replay recorded traffic (JSONL {t, client, method, args} or a HAR capture) instead of the profile's scenarios",
    )
    .option('--speed <factor>', 'with --replay: recorded offsets ÷ this (2 = twice as fast, 0.5 = half; default 1)', positiveNumber)
    .option('--loop', 'with --replay: play the window again when it ends, until --duration or -n')
    .option('--from <when>', 'with --replay: start of the window, a duration into the recording (e.g. 90s) or an ISO 8601 instant')
    .option('--to <when>', 'with --replay: end of the window (exclusive), as --from')
    .option(
      '--map-clients',
      "with --replay: send callers without a client ID of their own by configured ones (a stable hash of the caller's name)",
    )
    .option('--ca <file>', 'extra CA certificate (PEM) to trust for an https target', caFile)
    .option('--insecure', 'do not verify the https certificate')
    .option(
      '--http-client <name>',
      "the load's HTTP client: rpcload (rpcload's own: its HTTP/1.1 client, Node's http2 sessions on HTTP/2; " +
        'fast is its former name) or undici',
      httpClientName,
    )
    .option(
      '--timeout <duration>',
      "every request's overall deadline, token requests included (overrides http.requestTimeout, default 30s)",
      durationMs,
    );
  addTransportOptions(command)
    .option(
      '--workers <n>',
      'load worker threads, each with its own connections over a share of the clients and of the load (at most one per client)',
      positiveInt,
    )
    .option('--out <file>', 'result file (default results/<UTC timestamp>-<profile>.json); - writes it to stdout')
    .option(
      '--shard <I/N>',
      'carry shard I of N of one run: every N-th client and its share of the load (env RPCLOAD_SHARD, or JOB_COMPLETION_INDEX with RPCLOAD_SHARDS)',
    )
    .option('--run-id <id>', 'the id every shard of the run shares (env RPCLOAD_RUN_ID; default derived from the profile and --start-at)')
    .option(
      '--start-at <time>',
      'fetch tokens and open connections, then start the clock at this instant: ISO 8601 with a zone, or Unix seconds (env RPCLOAD_START_AT)',
    )
    .option(
      '--out-samples <file>',
      'also write one JSON line per second (requests, outcomes, p50, p99) as the run goes, for tail -f and plotting',
    )
    .addOption(
      new Option('--ui <mode>', 'live view: tui on a terminal, plain lines in CI or when piped')
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--json', 'print the summary as JSON on stdout instead of a table')
    .option('--label <text>', 'a label stored in the result file, e.g. the release under test')
    .option('--junit <file>', 'also write JUnit XML: each threshold and check as a test case')
    .option(
      '--otlp-endpoint <url>',
      'push the live metrics over OTLP/HTTP to this collector base URL (/v1/metrics is appended; env OTEL_EXPORTER_OTLP_ENDPOINT)',
    )
    .option('--otlp-interval <duration>', 'how often to push (default 10s; once more at the end)', durationMs);
  addMetricsOptions(command).action(async (profilePath: string | undefined, flags: RunFlags) => {
    const metrics = metricsOptionsOf(flags);
    const otlp = resolveOtlpOptions({ endpoint: flags.otlpEndpoint, intervalMs: flags.otlpInterval }, process.env);
    if (otlp === null && flags.otlpInterval !== undefined)
      throw new RpcloadError('bad_flag', '--otlp-interval: needs --otlp-endpoint (or OTEL_EXPORTER_OTLP_ENDPOINT)');
    await checkOutputFlags(flags, profilePath ?? (wantsInlineProfile(flags) ? undefined : defaultProfilePath()));
    const plan = await planOf(profilePath, flags);
    const { shard, startAtEpochMs } = resolveShardOptions(flags, process.env, plan);
    // With the result on stdout, everything else a user reads goes to stderr.
    const toStdout = flags.out === STDOUT_PATH;
    const say = toStdout ? process.stderr : process.stdout;
    const mode = toStdout ? 'none' : resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
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
      }),
    );
    const { result, path } = session;
    if (flags.junit !== undefined) await writeJunitFile(flags.junit, renderResultJunit(result));
    if (flags.json && !toStdout) {
      const { run, summary, byMethod, thresholds, checks, warnings } = result;
      const json = redactSecrets({ resultFile: path, run, summary, byMethod, thresholds, checks, warnings });
      say.write(`${JSON.stringify(json, null, 2)}\n`);
    } else {
      say.write(`${renderSummaryTable(result, { color: colourEnabled(say) })}\nresult file: ${toStdout ? 'stdout' : path}\n`);
    }
    if (session.writeProblem !== null) process.stderr.write(`warning: ${session.writeProblem}\n`);
    setExitCode(session.exitCode);
    // --metrics-linger: the summary is out; keep serving the final figures for the last scrape.
    await session.metricsClosed;
  });
}
