/**
 * What `rpcload capacity` does once its flags are parsed; loaded only when it runs (capacity.ts
 * declares the flags).
 */
import { appendFile } from 'node:fs/promises';
import { RpcloadError } from '../errors.ts';
import { resolveCapacity, type CapacityPlan } from '../profile/capacity-settings.ts';
import { DEFAULT_CAPACITY_PROFILE } from '../profile/profile-defaults.ts';
import { loadPlan } from '../profile/load-profile.ts';
import type { HttpClientName } from '../profile/plan.ts';
import { prepareReplays } from '../profile/replay-plan.ts';
import { replaySettingsOf } from '../profile/replay-settings.ts';
import { parseThreshold } from '../profile/thresholds.ts';
import { renderCapacityMarkdown, renderCapacitySummary } from '../results/capacity-summary.ts';
import { renderResultJunit, writeJunitFile } from '../results/result-junit.ts';
import { capacitySession } from '../session/capacity/capacity-session.ts';
import { searchedIndex, searchSetup } from '../session/capacity/searched-workload.ts';
import { createCapacityView } from '../ui/capacity-view.ts';
import { resolveUiMode, type UiMode } from '../ui/ui-mode.ts';
import { definedFields } from '../util/defined-fields.ts';
import { colourEnabled } from '../util/terminal-style.ts';
import { packageFile } from '../package-files.ts';
import { setExitCode } from './exit.ts';
import { checkOutputFlags } from './output-flags.ts';
import { withInterrupt } from './signals.ts';
import { metricsOptionsOf, type MetricsFlags } from './metrics-flags.ts';
import type { TransportFlags } from './transport-flags.ts';
import { transportOverridesOf } from './transport-identity.ts';

export interface CapacityFlags extends MetricsFlags, TransportFlags {
  target?: string;
  workload?: string;
  httpClient?: HttpClientName;
  replay?: string;
  from?: string;
  to?: string;
  mapClients?: boolean;
  replayHost?: string;
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

/** The profile's capacity section with the flags laid over it. */
function capacityOf(base: CapacityPlan | undefined, flags: CapacityFlags): CapacityPlan {
  const cap = base ?? resolveCapacity({}, []);
  const model = flags.closed ? 'closed' : cap.model;
  // --closed over an open-model profile: its start is a rate, not a number of users; with --replay
  // the profile's start was not written for the recording: both start from the default instead.
  const startGiven =
    flags.start !== undefined ||
    (cap.startGiven && !(flags.closed && cap.model !== 'closed') && flags.replay === undefined);
  return {
    ...cap,
    model,
    startGiven,
    ...definedFields({
      workload: flags.workload,
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

/** `rpcload capacity [profile]`: search, confirm, write the result file, print the answer. */
export async function capacityAction(profilePath: string | undefined, flags: CapacityFlags): Promise<void> {
  const metrics = metricsOptionsOf(flags);
  const path = profilePath ?? packageFile(DEFAULT_CAPACITY_PROFILE);
  await checkOutputFlags(flags, path);
  const loaded = await loadPlan(path, {
    ...(flags.target === undefined ? {} : { target: flags.target }),
    ...(flags.clients === undefined ? {} : { clients: flags.clients }),
    ...transportOverridesOf(flags),
    ...(flags.httpClient === undefined ? {} : { httpClient: flags.httpClient }),
    ...(flags.replay === undefined ? {} : { replay: flags.replay }),
    ...(flags.workload === undefined ? {} : { workload: flags.workload }),
  });
  const index = searchedIndex(loaded, flags.workload ?? loaded.capacity?.workload ?? null);
  const searchedUnit = loaded.workloads[index]!;
  // A replay searches the speed of its window (looped by every step), from 1× unless --start says
  // otherwise; a replay beside it plays as configured.
  const replay = replaySettingsOf(flags, searchedUnit.replaySettings);
  if (replay !== null && flags.closed)
    throw new RpcloadError('bad_flag', '--closed: a replay is open-model (the recording sets the arrivals)');
  const plan = await prepareReplays(loaded, (w) =>
    w === searchedUnit && replay !== null
      ? { ...replay, loop: false, maxCalls: null, durationMs: null }
      : w.replaySettings!,
  );
  const { cap: capacity, searched } = searchSetup({ ...plan, capacity: capacityOf(plan.capacity, flags) });
  const mode = resolveUiMode(flags.ui, { isTTY: process.stdout.isTTY === true, ci: process.env.CI });
  const session = await withInterrupt(async (signal, stop) => {
    const view = createCapacityView(
      mode,
      {
        profile: plan.name,
        target: plan.target ?? '(embedded reference server)',
        resultPath: flags.out ?? 'results/',
        model: capacity.model,
        replay: searched.unit === 'replay',
        workload: searched.named ? searched.name : null,
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
    await appendFile(summary, renderCapacityMarkdown(result, resultPath), 'utf8').catch(
      (err: NodeJS.ErrnoException) => {
        throw new RpcloadError('write_failed', `${summary}: cannot write the summary: ${err.code ?? err.message}`);
      },
    );
  if (flags.json)
    process.stdout.write(
      `${JSON.stringify({ resultFile: resultPath, run: result.run, capacity: result.capacity }, null, 2)}\n`,
    );
  else process.stdout.write(`${renderCapacitySummary(result, resultPath, { color: colourEnabled(process.stdout) })}\n`);
  if (session.writeProblem !== null) process.stderr.write(`warning: ${session.writeProblem}\n`);
  setExitCode(session.exitCode);
  // --metrics-linger: the summary is out; keep serving the final figures for the last scrape.
  await session.metricsClosed;
}
