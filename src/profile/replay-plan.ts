/**
 * A replay of recorded traffic as a plan: the settings (`--replay FILE`, `--speed`, `--loop`,
 * `--from`/`--to`, `-n`, `--map-clients`, or the profile's `replay` section), and what the scan of
 * the recording before the run (replay-scan.ts) makes of them — the callers of the chosen window
 * and the client ID each is sent by, the window's calls, methods and length, a length no run could
 * last refused. The replay's workload then holds one scenario per recorded method and one phase of
 * load kind `replay` whose length is the window's at the speed: the driver's replay loop
 * (driver/replay-loop.ts) sends each call at its recorded offset ÷ speed; the scenarios give the
 * recorder its method dimension.
 */
import { basename } from 'node:path';
import type { ReplaySource } from '../contract/replay-source-schema.ts';
import { RpcloadError } from '../errors.ts';
import { formatDurationMs, MAX_DURATION_MS, MAX_DURATION_TEXT } from '../util/duration.ts';
import { REPLAY_LOAD } from './phase-load.ts';
import type { Plan, ScenarioPlan, WorkloadPlan } from './plan.ts';
import { ProfileError } from './problems.ts';
import { UNKNOWN_CALLER } from './replay-record.ts';
import { scanRecording, type Scan } from './replay-scan.ts';
import type { ReplayPlan, ReplaySettings } from './replay-settings.ts';
import { selectorProblems } from './selection.ts';

/** Scenario names of a replay: `replay:METHOD`. */
export const REPLAY_SCENARIO_PREFIX = 'replay:';

/** FNV-1a of a caller's name: the same caller lands on the same client ID in every run and every process. */
export function callerHash(caller: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < caller.length; i++) {
    hash ^= caller.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Caller → client ID: its own when configured, else (with mapClients) one by hash; callers with
 * neither are an error, which says why calls have no known caller when some have none.
 */
function mapCallers(scan: Scan, clientIds: readonly string[], settings: ReplaySettings): [string, string][] {
  const configured = new Set(clientIds);
  const pairs: [string, string][] = [];
  const missing: string[] = [];
  for (const caller of scan.callers) {
    if (configured.has(caller)) pairs.push([caller, caller]);
    else if (settings.mapClients && clientIds.length > 0)
      pairs.push([caller, clientIds[callerHash(caller) % clientIds.length]!]);
    else missing.push(caller);
  }
  if (missing.length > 0) {
    const named = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '');
    const why =
      missing.includes(UNKNOWN_CALLER) && scan.unknownCallers !== ''
        ? `; ${UNKNOWN_CALLER} is ${scan.unknownCallers}`
        : '';
    const callers = `${missing.length} recorded caller${missing.length === 1 ? ' has' : 's have'}`;
    const remedy =
      "configure them (--client ID:SECRET, the profile's clients) or map the callers onto the configured clients with --map-clients";
    throw new RpcloadError(
      'bad_replay',
      `${basename(settings.file)}: ${callers} no configured client ID: ${named}${why}; ${remedy}`,
    );
  }
  return pairs;
}

/** A window's length in words: `12.5s`, `3h05m`, `31 days`. */
function lengthText(ms: number): string {
  const days = ms / 86_400_000;
  return days < 2 ? formatDurationMs(ms) : `${Number(days.toPrecision(3))} days`;
}

/**
 * The plan with workload `workload`'s replay prepared: its recording scanned, its callers mapped
 * onto the workload's clients, its scenarios the recording's methods (one each, shared with any
 * other replay workload that records the same method), and its phase as long as its window at its
 * speed (and loops). Throws an RpcloadError (exit 2) for a bad record, a bad bound, or callers
 * nobody can send for.
 */
export async function prepareReplay(plan: Plan, workload: number, settings: ReplaySettings): Promise<Plan> {
  if (!(Number.isFinite(settings.speed) && settings.speed > 0))
    throw new RpcloadError(
      'bad_flag',
      `--speed: expected a factor greater than 0 (e.g. 2 or 0.5), found ${settings.speed}`,
    );
  const unit = plan.workloads[workload]!;
  const scan = await scanRecording(settings, plan.auth.tokenMethod);
  const { facts } = scan;
  if (facts.callsInWindow === 0)
    throw new RpcloadError(
      'bad_replay',
      `${facts.fileName}: no call to replay ${facts.calls === 0 ? 'in the recording' : 'in the window --from/--to'}`,
    );
  const callerClients = mapCallers(
    scan,
    unit.clients.map((c) => plan.clients[c.index]!.id),
    settings,
  );
  const mappedCallers = callerClients.filter(([caller, id]) => caller !== id).length;
  const spanMs = scan.lastInWindowMs - scan.fromMs;
  const meanGapMs =
    facts.callsInWindow > 1 ? (scan.lastInWindowMs - scan.firstInWindowMs) / (facts.callsInWindow - 1) : 1000;
  // A bounded window loops at its bound; an open one one mean gap after its last call, keeping its rhythm.
  const passMs = scan.toMs !== null ? scan.toMs - scan.fromMs : spanMs + meanGapMs;
  const { speed } = settings;
  let durationMs: number;
  if (settings.loop && settings.durationMs !== null) durationMs = settings.durationMs;
  else {
    let whole: number;
    if (!settings.loop) whole = (scan.lastSentMs - scan.fromMs) / speed + 1;
    else if (settings.maxCalls !== null) whole = (Math.ceil(settings.maxCalls / facts.callsInWindow) * passMs) / speed;
    else throw new RpcloadError('bad_flag', '--loop: say how long the replay lasts: --duration, or -n calls');
    // --duration ends a longer window where it says; a window no run could last (t in µs, --speed 1e-9) is refused.
    durationMs = settings.durationMs === null ? whole : Math.min(whole, settings.durationMs);
    if (!(durationMs <= MAX_DURATION_MS)) {
      const length = `${lengthText(whole)} (${lengthText(whole * speed)} of the recording at speed ${speed})`;
      const remedy = 'choose a window (--from, --to), a higher --speed, or end it sooner with --duration';
      throw new RpcloadError(
        'bad_replay',
        `${facts.fileName}: the replay would last ${length}, longer than a run may last, ${MAX_DURATION_TEXT}: ${remedy}`,
      );
    }
  }
  const methods = [...scan.methodCounts.keys()];
  const scenarios = [...plan.scenarios];
  const workloadScenarios = methods.map((method) => {
    const name = `${REPLAY_SCENARIO_PREFIX}${method}`;
    let index = scenarios.findIndex((scenario) => scenario.name === name);
    if (index < 0) index = scenarios.push(replayScenario(name, method)) - 1;
    return { index, weight: scan.methodCounts.get(method)! };
  });
  const replay: ReplayPlan = {
    file: settings.file,
    format: facts.format,
    speed,
    loop: settings.loop,
    maxCalls: settings.maxCalls,
    mapClients: settings.mapClients,
    fromMs: scan.fromMs,
    toMs: scan.toMs,
    startByte: scan.startByte,
    startLine: scan.startLine,
    originEpochMs: scan.originEpochMs,
    mtimeMs: scan.mtimeMs,
    host: scan.host,
    notes: scan.notes,
    passMs,
    callerClients,
    methods,
    facts: { ...facts, mappedCallers },
  };
  const [phaseIndex] = unit.phases;
  return {
    ...plan,
    scenarios,
    workloads: plan.workloads.map((w, i) =>
      i === workload ? { ...w, scenarios: workloadScenarios, replaySettings: settings, replay } : w,
    ),
    phases: plan.phases.map((phase, i) => (i === phaseIndex ? { ...phase, durationMs, load: REPLAY_LOAD } : phase)),
  };
}

/**
 * The plan with every replay workload prepared (prepareReplay), each with the settings `settingsOf`
 * gives it (its profile section, with any flags applied); then its thresholds' selectors, whose
 * methods were unknown until now, are checked (a problem is a ProfileError, exit 2).
 */
export async function prepareReplays(
  plan: Plan,
  settingsOf: (workload: WorkloadPlan) => ReplaySettings = (w) => w.replaySettings!,
): Promise<Plan> {
  let prepared = plan;
  for (const [index, workload] of plan.workloads.entries())
    if (workload.replaySettings !== undefined) prepared = await prepareReplay(prepared, index, settingsOf(workload));
  if (prepared === plan) return plan;
  const problems = selectorProblems(prepared, prepared.thresholds, () => '/thresholds', false);
  if (problems.length > 0) throw new ProfileError(plan.source, problems);
  return prepared;
}

/** The one-step scenario of a recorded method: its calls' bodies come from the recording. */
function replayScenario(name: string, method: string): ScenarioPlan {
  return {
    name,
    weight: 1,
    steps: [
      {
        method,
        body: { source: {}, variability: 'static' },
        paginate: null,
        think: { kind: 'fixed', ms: 0 },
        save: [],
        expect: null,
        onFail: 'stop',
        tags: {},
      },
    ],
  };
}

/** The plan with workload `workload`'s replay at another speed, looping its window (a capacity step). */
export function replayAtSpeed(plan: Plan, workload: number, speed: number): Plan {
  return {
    ...plan,
    workloads: plan.workloads.map((w, i) =>
      i === workload ? { ...w, replay: { ...w.replay!, speed, loop: true, maxCalls: null } } : w,
    ),
  };
}

/** Calls per second of the replay's window at speed 1. */
export function replayBaseRatePerS(replay: ReplayPlan): number {
  return replay.facts.callsInWindow / (replay.passMs / 1000);
}

/** The result file's source record of a replay, before the run adds what it sent and skipped. */
export function replaySource(replay: ReplayPlan): Omit<ReplaySource, 'sent'> {
  const { facts } = replay;
  return {
    file: facts.fileName,
    format: facts.format,
    bytes: facts.bytes,
    sha256: facts.sha256,
    speed: replay.speed,
    loop: replay.loop,
    window: { fromMs: replay.fromMs, toMs: replay.toMs },
    maxCalls: replay.maxCalls,
    calls: facts.calls,
    callsInWindow: facts.callsInWindow,
    skipped: { ...facts.skipped },
    callers: facts.callers,
    mappedCallers: facts.mappedCallers,
    outOfOrder: facts.outOfOrder,
  };
}
