/**
 * A replay of recorded traffic as a plan: the settings (`--replay FILE`, `--speed`, `--loop`,
 * `--from`/`--to`, `-n`, `--map-clients`, or the profile's `replay` section), and what a scan of
 * the recording before the run makes of them — every record checked (a bad one is one line naming
 * file, line and field, before any load), the file's size and SHA-256, the callers of the chosen
 * window and the client ID each is sent by, the window's calls, methods and length. The replay's
 * workload then holds one scenario per recorded method and one phase of load kind `replay` whose
 * length is the window's at the speed: the driver's replay loop (driver/replay-loop.ts) sends each
 * call at its recorded offset ÷ speed; the scenarios give the recorder its method dimension.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ReplaySource } from '../contract/replay-source-schema.ts';
import { RpcloadError } from '../errors.ts';
import { parseDurationMs } from '../util/duration.ts';
import { REPLAY_LOAD } from './phase-load.ts';
import type { Plan, ScenarioPlan, WorkloadPlan } from './plan.ts';
import { ProfileError } from './problems.ts';
import { selectorProblems } from './selection.ts';
import { formatOfFile, RecordingReader, type SkipReason } from './replay-recording.ts';
import type { RecordingFacts, ReplayPlan, ReplaySettings } from './replay-settings.ts';

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

/** A window bound in ms since the first call: a duration into the recording, or an instant of one whose `t` are instants. */
function boundMs(text: string | null, flag: string, originEpochMs: number | null): number | null {
  if (text === null) return null;
  const durationMs = parseDurationMs(text);
  if (durationMs !== undefined) return durationMs;
  const epochMs = /^\d{4}-\d\d-\d\dT/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(epochMs))
    throw new RpcloadError(
      'bad_flag',
      `${flag}: expected a duration into the recording (e.g. 90s) or an ISO 8601 instant, found "${text}"`,
    );
  if (originEpochMs === null)
    throw new RpcloadError(
      'bad_flag',
      `${flag}: an instant needs a recording whose "t" are instants; this one counts ms, use a duration (e.g. 90s)`,
    );
  return epochMs - originEpochMs;
}

interface Scan {
  facts: Omit<RecordingFacts, 'mappedCallers'>;
  fromMs: number;
  toMs: number | null;
  /** Offset of the window's first and last call, and of the last call sent without a loop (the maxCalls-th). */
  firstInWindowMs: number;
  lastInWindowMs: number;
  lastSentMs: number;
  /** Where reading the file again reaches the window's first call without reading what precedes it. */
  startByte: number;
  callers: Set<string>;
  methodCounts: Map<string, number>;
}

/** Read the whole recording once: check every record, hash it, and learn what the window holds. */
async function scanRecording(settings: ReplaySettings, tokenMethod: string): Promise<Scan> {
  const { file } = settings;
  const size = await stat(file).catch(() => null);
  if (size === null || !size.isFile()) throw new RpcloadError('bad_replay', `--replay: ${file}: no such file`);
  const format = formatOfFile(file);
  const hash = createHash('sha256');
  const skipped: Record<string, number> = {};
  const reader = new RecordingReader(file, {
    format,
    tokenMethod,
    onBytes: (chunk) => hash.update(chunk),
    onSkip: (reason: SkipReason) => (skipped[reason] = (skipped[reason] ?? 0) + 1),
  });
  const callers = new Set<string>();
  const methodCounts = new Map<string, number>();
  let calls = 0;
  let inWindow = 0;
  let outOfOrder = 0;
  let previousMs = Number.NEGATIVE_INFINITY;
  let fromMs = 0;
  let toMs: number | null = null;
  let first = Number.NaN;
  let last = Number.NaN;
  let lastSent = Number.NaN;
  let startByte = 0;
  for await (const batch of reader.batches()) {
    for (const call of batch) {
      if (calls === 0) {
        // Bounds may be instants: known once the first call has set the recording's origin.
        fromMs = boundMs(settings.from, '--from', reader.originEpochMs) ?? 0;
        toMs = boundMs(settings.to, '--to', reader.originEpochMs);
        if (toMs !== null && toMs <= fromMs)
          throw new RpcloadError('bad_flag', `--to: expected a point after --from, found ${settings.to}`);
      }
      calls++;
      if (call.offsetMs < previousMs) outOfOrder++;
      previousMs = call.offsetMs;
      if (call.offsetMs < fromMs || (toMs !== null && call.offsetMs >= toMs)) continue;
      inWindow++;
      if (inWindow === 1) {
        first = call.offsetMs;
        startByte = reader.chunkBeforeByte;
      }
      last = Math.max(Number.isNaN(last) ? call.offsetMs : last, call.offsetMs);
      if (settings.maxCalls === null || inWindow <= settings.maxCalls)
        lastSent = Math.max(Number.isNaN(lastSent) ? call.offsetMs : lastSent, call.offsetMs);
      callers.add(call.caller);
      methodCounts.set(call.method, (methodCounts.get(call.method) ?? 0) + 1);
    }
  }
  const fileName = basename(file);
  const facts = {
    fileName,
    format,
    bytes: size.size,
    sha256: hash.digest('hex'),
    calls,
    callsInWindow: inWindow,
    skipped,
    callers: callers.size,
    outOfOrder,
  };
  return { facts, fromMs, toMs, firstInWindowMs: first, lastInWindowMs: last, lastSentMs: lastSent, startByte, callers, methodCounts };
}

/** Caller → client ID: its own when configured, else (with mapClients) one by hash; callers with neither are an error. */
function mapCallers(callers: Set<string>, clientIds: readonly string[], settings: ReplaySettings): [string, string][] {
  const configured = new Set(clientIds);
  const pairs: [string, string][] = [];
  const missing: string[] = [];
  for (const caller of callers) {
    if (configured.has(caller)) pairs.push([caller, caller]);
    else if (settings.mapClients && clientIds.length > 0) pairs.push([caller, clientIds[callerHash(caller) % clientIds.length]!]);
    else missing.push(caller);
  }
  if (missing.length > 0) {
    const named = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ` and ${missing.length - 5} more` : '');
    throw new RpcloadError(
      'bad_replay',
      `${basename(settings.file)}: ${missing.length} recorded caller${missing.length === 1 ? ' has' : 's have'} no configured client ID: ${named}; configure them (--client ID:SECRET, the profile's clients) or map the callers onto the configured clients with --map-clients`,
    );
  }
  return pairs;
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
    throw new RpcloadError('bad_flag', `--speed: expected a factor greater than 0 (e.g. 2 or 0.5), found ${settings.speed}`);
  const unit = plan.workloads[workload]!;
  const scan = await scanRecording(settings, plan.auth.tokenMethod);
  const { facts } = scan;
  if (facts.callsInWindow === 0)
    throw new RpcloadError(
      'bad_replay',
      `${facts.fileName}: no call to replay ${facts.calls === 0 ? 'in the recording' : 'in the window --from/--to'}`,
    );
  const callerClients = mapCallers(
    scan.callers,
    unit.clients.map((c) => plan.clients[c.index]!.id),
    settings,
  );
  const mappedCallers = callerClients.filter(([caller, id]) => caller !== id).length;
  const spanMs = scan.lastInWindowMs - scan.fromMs;
  const meanGapMs = facts.callsInWindow > 1 ? (scan.lastInWindowMs - scan.firstInWindowMs) / (facts.callsInWindow - 1) : 1000;
  // A bounded window loops at its bound; an open one one mean gap after its last call, keeping its rhythm.
  const passMs = scan.toMs !== null ? scan.toMs - scan.fromMs : spanMs + meanGapMs;
  const { speed } = settings;
  let durationMs: number;
  if (!settings.loop) durationMs = (scan.lastSentMs - scan.fromMs) / speed + 1;
  else if (settings.durationMs !== null) durationMs = settings.durationMs;
  else if (settings.maxCalls !== null) durationMs = (Math.ceil(settings.maxCalls / facts.callsInWindow) * passMs) / speed;
  else throw new RpcloadError('bad_flag', '--loop: say how long the replay lasts: --duration, or -n calls');
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
    workloads: plan.workloads.map((w, i) => (i === workload ? { ...w, replay: { ...w.replay!, speed, loop: true, maxCalls: null } } : w)),
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
