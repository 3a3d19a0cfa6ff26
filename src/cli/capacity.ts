/** `rpcload capacity [profile]` — search the highest rate (or concurrency) the target sustains within its SLO. */
import { appendFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import { RpcloadError } from '../errors.ts';
import { resolveCapacity, type CapacityPlan } from '../profile/capacity-settings.ts';
import { loadPlan } from '../profile/load-profile.ts';
import type { HttpClientName } from '../profile/plan.ts';
import { prepareReplay } from '../profile/replay-plan.ts';
import { replaySettingsOf } from '../profile/replay-settings.ts';
import { parseThreshold } from '../profile/thresholds.ts';
import { renderCapacityMarkdown, renderCapacitySummary } from '../results/capacity-summary.ts';
import { renderResultJunit, writeJunitFile } from '../results/result-junit.ts';
import { capacitySession } from '../session/capacity/capacity-session.ts';
import { createCapacityView } from '../ui/capacity-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { definedFields } from '../util/defined-fields.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { setExitCode } from './exit.ts';
import { durationMs, httpClientName, httpUrl, positiveInt, positiveNumber } from './parsers.ts';
import { checkOutputFlags } from './output-flags.ts';
import { withInterrupt } from './signals.ts';
import { addMetricsOptions, metricsOptionsOf, type MetricsFlags } from './metrics-flags.ts';
import { addTransportOptions, transportOverridesOf, type TransportFlags } from './transport-flags.ts';

interface CapacityFlags extends MetricsFlags, TransportFlags {
  target?: string;
  httpClient?: HttpClientName;
  replay?: string;
  from?: string;
  to?: string;
  mapClients?: boolean;
  clients?: number;
  workers?: number;
  out?: string;
  label?: string;
  junit?: string;
  json?: boolean;
  closed?: boolean;
  start?: number;
  factor?: number;
  tolerance?: number;
  max?: number;
  warmUp?: number;
  hold?: number;
  confirm?: number;
  slo?: string[];
  include429?: boolean;
  maxLag?: number;
  maxSteps?: number;
  ui: UiMode;
  summaryMd?: string;
}

const DEFAULT_CAPACITY_PROFILE = 'profiles/capacity.json';

/** A duration flag that must be whole seconds (steps are measured per second), in ms. */
function wholeSecondsMs(flag: string) {
  return (value: string): number => {
    const ms = durationMs(value);
    if (ms % 1000 !== 0) throw new RpcloadError('bad_flag', `${flag}: expected whole seconds like 5s, found ${JSON.stringify(value)}`);
    return ms;
  };
}

/** The profile's capacity section with the flags laid over it. */
function capacityOf(base: CapacityPlan | undefined, flags: CapacityFlags): CapacityPlan {
  const cap = base ?? resolveCapacity({}, []);
  const model = flags.closed ? 'closed' : cap.model;
  return {
    ...cap,
    model,
    // --closed over an open-model profile: its start is a rate, not a number of users.
    ...(flags.closed && cap.model !== 'closed' ? { start: 1 } : {}),
    ...definedFields({
      start: flags.start,
      factor: flags.factor,
      tolerance: flags.tolerance,
      max: flags.max,
      warmUpMs: flags.warmUp,
      holdMs: flags.hold,
      confirmMs: flags.confirm,
      slo: flags.slo?.map((line) => parseThreshold(line)),
      include429: flags.include429 ? true : undefined,
      maxLagMs: flags.maxLag,
      maxSteps: flags.maxSteps,
    }),
  };
}

export function registerCapacityCommand(program: Command): void {
  const command = program
    .command('capacity')
    .description(
      'find the highest rate (or concurrency) the target sustains within its SLO; a profile without a target searches the embedded reference server',
    )
    .argument('[profile]', `profile file (default: ${DEFAULT_CAPACITY_PROFILE})`)
    .option('--target <url>', 'target base URL (overrides the profile)', httpUrl)
    .option('--clients <n>', 'use only the first N client IDs', positiveInt)
    .option('--workers <n>', 'load worker threads', positiveInt)
    .option(
      '--http-client <name>',
      "the load's HTTP client: rpcload (rpcload's own: its HTTP/1.1 client, Node's http2 sessions on HTTP/2; " +
        'fast is its former name) or undici',
      httpClientName,
    )
    .option('--closed', 'closed model: search the concurrency (virtual users) and fit the Universal Scalability Law')
    .option('--start <n>', 'first step: rate per second (open) or virtual users (closed)', positiveNumber)
    .option('--factor <x>', 'growth factor until a step fails (default 2)', positiveNumber)
    .option('--tolerance <x>', 'bisect until the bracket is this narrow, relative (default 0.05)', positiveNumber)
    .option('--max <n>', 'never step above this rate (or concurrency)', positiveNumber)
    .option('--warm-up <duration>', 'warm-up of each step, whole seconds (default 2s)', wholeSecondsMs('--warm-up'))
    .option('--hold <duration>', 'measured hold of each step, whole seconds (default 5s)', wholeSecondsMs('--hold'))
    .option('--confirm <duration>', 'hold of the confirmation, whole seconds; 0 = none (default 15s)', wholeSecondsMs('--confirm'))
    .option(
      '--slo <line>',
      'an SLO line, e.g. "p99 < 250ms" (repeatable; default: the profile\'s thresholds)',
      (v: string, prev?: string[]) => [...(prev ?? []), v],
    )
    .option('--replay <file>', 'search the speed of this recording (JSONL or HAR) instead of a rate: --start and --max are then speeds')
    .option('--from <when>', 'with --replay: start of the window every step plays (a duration into the recording or an ISO 8601 instant)')
    .option('--to <when>', 'with --replay: end of the window (exclusive), as --from')
    .option('--map-clients', 'with --replay: send callers without a client ID of their own by configured ones (a stable hash)')
    .option('--include-429', "search past the clients' quotas, counting 429s as answers")
    .option('--max-lag <duration>', 'schedule lag p99 above which a step is generator-bound (default 20ms)', durationMs)
    .option('--max-steps <n>', 'stop the search after this many steps (default 30)', positiveInt)
    .option('--label <text>', 'a label stored in the result file, e.g. the release under test')
    .option('--out <file>', 'result file (default results/<UTC timestamp>-<profile>-capacity.json)')
    .option('--summary-md <file>', 'append a markdown summary to this file (default: $GITHUB_STEP_SUMMARY when set)')
    .option('--junit <file>', 'also write JUnit XML: the SLO lines of the confirmation and the capacity as test cases')
    .addOption(
      new Option('--ui <mode>', 'live view: the dashboard of each step on a terminal, one line per step in CI or when piped, or none')
        .choices(['auto', 'tui', 'plain', 'none'])
        .default('auto'),
    )
    .option('--json', 'print the capacity record as JSON on stdout instead of the summary');
  addMetricsOptions(addTransportOptions(command)).action(async (profilePath: string | undefined, flags: CapacityFlags) => {
    const metrics = metricsOptionsOf(flags);
    const path = profilePath ?? fileURLToPath(new URL(`../../${DEFAULT_CAPACITY_PROFILE}`, import.meta.url));
    await checkOutputFlags(flags, path);
    const loaded = await loadPlan(path, {
      ...(flags.target === undefined ? {} : { target: flags.target }),
      ...(flags.clients === undefined ? {} : { clients: flags.clients }),
      ...transportOverridesOf(flags),
      ...(flags.httpClient === undefined ? {} : { httpClient: flags.httpClient }),
      ...(flags.replay === undefined ? {} : { replay: flags.replay }),
    });
    // A replay searches the speed of its window (looped by every step), from 1× unless --start says otherwise.
    const replay = replaySettingsOf(flags, loaded.replaySettings);
    if (replay !== null && flags.closed)
      throw new RpcloadError('bad_flag', '--closed: a replay is open-model (the recording sets the arrivals)');
    const plan = replay === null ? loaded : await prepareReplay(loaded, { ...replay, loop: false, maxCalls: null, durationMs: null });
    const capacity = { ...capacityOf(plan.capacity, flags), ...(replay !== null && flags.start === undefined ? { start: 1 } : {}) };
    const mode = resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
    const session = await withInterrupt(async (signal, stop) => {
      const view = createCapacityView(
        mode,
        {
          profile: plan.name,
          target: plan.target ?? '(embedded reference server)',
          resultPath: flags.out ?? 'results/',
          model: capacity.model,
        },
        { onQuit: stop },
      );
      try {
        return await capacitySession({
          plan: { ...plan, capacity },
          signal,
          workers: flags.workers,
          outPath: flags.out,
          label: flags.label,
          metrics,
          onProgress: (event) => view.onProgress(event),
          warn: (warning) => process.stderr.write(`warning: ${warning}\n`),
        });
      } finally {
        view.stop();
      }
    });
    const { result, path: resultPath } = session;
    if (flags.junit !== undefined) await writeJunitFile(flags.junit, renderResultJunit(result));
    const summary = flags.summaryMd ?? process.env.GITHUB_STEP_SUMMARY;
    if (summary !== undefined && summary !== '')
      await appendFile(summary, renderCapacityMarkdown(result, resultPath), 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new RpcloadError('write_failed', `${summary}: cannot write the summary: ${err.code ?? err.message}`);
      });
    if (flags.json)
      process.stdout.write(`${JSON.stringify({ resultFile: resultPath, run: result.run, capacity: result.capacity }, null, 2)}\n`);
    else process.stdout.write(`${renderCapacitySummary(result, resultPath, { color: colourEnabled(process.stdout) })}\n`);
    setExitCode(session.exitCode);
    // --metrics-linger: the summary is out; keep serving the final figures for the last scrape.
    await session.metricsClosed;
  });
}
