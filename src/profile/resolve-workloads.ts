/**
 * Resolves a profile's units of load: its `workloads`, or — in a profile without them — the one
 * workload `default` made of its top-level `phases` or `replay`. Each workload gets its clients
 * (a clients block of its own, whose IDs join the plan's one list of identities, or IDs already
 * configured), its scenarios with their weights, its start on the run's clock, and one load:
 * phases (a rate or a concurrency), N iterations per client, or a replay. The run's load flags
 * (`--rate`, `--duration`, …) reshape the one workload, or the one `--workload` names.
 */
import { iterationsLoad, REPLAY_LOAD } from './phase-load.ts';
import type { ClientPlan, PhasePlan, ScenarioPlan, WeightedIndex, WorkloadPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import { WorkloadSchema, type ClientsSettings, type WorkloadSettings } from './profile-schema.ts';
import { childPointer, expected, type Problem } from './problems.ts';
import { resolveClients, type ClientsContext } from './resolve-clients.ts';
import { durationMs, POSITIVE, ALLOW_ZERO } from './resolve-durations.ts';
import { resolvePhases, type PhaseOverrides } from './resolve-phases.ts';
import { ReplaySchema, resolveReplaySettings } from './replay-settings.ts';
import { isRecord, validFields } from './valid-fields.ts';

/** What the load flags of `run` and `capacity` change, and which workload (`--workload NAME`). */
export interface WorkloadOverrides extends PhaseOverrides {
  readonly workload?: string;
  /** `--replay FILE`: the chosen workload replays this recording (its phases then come from it). */
  readonly replay?: string;
}

/** The profile's parts the workloads are resolved against. */
export interface WorkloadContext {
  /** The whole profile, as given (fields checked one by one here). */
  readonly raw: Readonly<Record<string, unknown>>;
  /** The top-level clients, resolved (the identities workloads name by default). */
  readonly clients: readonly ClientPlan[];
  /** The top-level `clients` block as validated ({} when absent): a workload's block inherits its secret. */
  readonly clientsSettings: ClientsSettings;
  readonly clientsContext: ClientsContext;
  readonly scenarios: readonly ScenarioPlan[];
  readonly baseDir: string;
  readonly overrides: WorkloadOverrides;
}

export interface ResolvedWorkloads {
  /** Every client identity: the top-level ones, then those only a workload names, once each. */
  readonly clients: ClientPlan[];
  readonly workloads: WorkloadPlan[];
  /** Every workload's phases, in workload order (names prefixed `workload/` when there are several). */
  readonly phases: PhasePlan[];
}

const LOAD_KEYS = ['phases', 'iterations', 'replay'] as const;

/**
 * The workloads of a profile and the plan's client list and phase list that go with them.
 * Problems go to `problems` (the plan is then never built from the result).
 */
export function resolveWorkloads(context: WorkloadContext, problems: Problem[]): ResolvedWorkloads {
  const { raw, overrides } = context;
  const listed = Array.isArray(raw.workloads) ? (raw.workloads as unknown[]) : null;
  if (listed !== null)
    for (const key of ['phases', 'replay'] as const)
      if (raw[key] !== undefined)
        problems.push({
          path: `/${key}`,
          message: `expected ${key} inside a workload when the profile has "workloads" (each workload has its own load), found it at the top level`,
        });
  const sources: WorkloadSource[] =
    listed === null
      ? [{ settings: legacyWorkload(raw, overrides), pointer: '', legacy: true }]
      : listed.map((item, index) => ({
          settings: validFields(WorkloadSchema, item),
          rawItem: item,
          pointer: `/workloads/${index}`,
          legacy: false,
        }));
  const target = chosenWorkload(sources, overrides, problems);
  const clients = [...context.clients];
  const phases: PhasePlan[] = [];
  const seen = new Map<string, number>();
  const workloads = sources.map((source, index): WorkloadPlan => {
    const name = source.settings.name ?? D.workload.name;
    const earlier = seen.get(name);
    if (earlier === undefined) seen.set(name, index);
    else
      problems.push(
        expected(`${source.pointer}/name`, `a unique workload name (workload ${earlier + 1} is also "${name}")`, name),
      );
    const workloadClients = resolveWorkloadClients(source, context, clients, problems);
    const own = resolveOwnLoad(source, index, index === target ? overrides : {}, context, problems);
    const first = phases.length;
    phases.push(...own.phases);
    return {
      name,
      clients: workloadClients,
      scenarios: own.replaySettings === undefined ? resolveWorkloadScenarios(source, context.scenarios, problems) : [],
      startAfterMs:
        source.settings.startAfter === undefined
          ? 0
          : durationMs(source.settings.startAfter, `${source.pointer}/startAfter`, problems, ALLOW_ZERO),
      phases: own.phases.map((_, i) => first + i),
      ...(own.replaySettings === undefined ? {} : { replaySettings: own.replaySettings }),
    };
  });
  // Phase names stay unique across the run: with several workloads each is its workload's.
  const named =
    workloads.length > 1
      ? phases.map((phase) => ({ ...phase, name: `${workloads[phase.workload]!.name}/${phase.name}` }))
      : phases;
  return { clients, workloads, phases: named };
}

/** One workload as the profile states it, and where. */
interface WorkloadSource {
  readonly settings: Partial<WorkloadSettings>;
  /** The item as given (its fields may have failed the schema: they are then absent from `settings`). */
  readonly rawItem?: unknown;
  /** Its JSON pointer ('' for the top-level phases/replay of a profile without workloads). */
  readonly pointer: string;
  /** The workload a profile without `workloads` has: its load sits at the top level. */
  readonly legacy: boolean;
}

/** A profile without `workloads`: its top-level phases or replay are the load of workload `default`. */
function legacyWorkload(
  raw: Readonly<Record<string, unknown>>,
  overrides: WorkloadOverrides,
): Partial<WorkloadSettings> {
  if (raw.replay !== undefined || overrides.replay !== undefined)
    return {
      name: D.workload.name,
      replay: (validFields(ReplaySchema, raw.replay) ?? {}) as WorkloadSettings['replay'],
    };
  return { name: D.workload.name, phases: raw.phases as WorkloadSettings['phases'] };
}

/** Which workload the load flags change: the only one, or the one `--workload` names; -1 when none can be. */
function chosenWorkload(sources: readonly WorkloadSource[], overrides: WorkloadOverrides, problems: Problem[]): number {
  const names = sources.map((source) => source.settings.name ?? D.workload.name);
  if (overrides.workload !== undefined) {
    const index = names.indexOf(overrides.workload);
    if (index < 0)
      problems.push(expected('--workload', `a workload of the profile (${names.join(', ')})`, overrides.workload));
    return index;
  }
  const flag = loadFlagOf(overrides);
  if (flag !== null && sources.length > 1) {
    problems.push({
      path: flag,
      message: `expected --workload NAME beside it (the profile has ${sources.length} workloads: ${names.join(', ')}), found none`,
    });
    return -1;
  }
  return 0;
}

/** The first load flag given, for a problem's path; null when none is. */
function loadFlagOf(o: WorkloadOverrides): string | null {
  if (o.load !== undefined) return o.load.kind === 'rate' ? '--rate' : '--concurrency';
  if (o.stages !== undefined) return '--stages';
  if (o.durationMs !== undefined) return '--duration';
  if (o.requests !== undefined) return '--requests';
  if (o.arrivals !== undefined) return '--arrivals';
  if (o.replay !== undefined) return '--replay';
  return null;
}

/**
 * A workload's clients: the top-level ones (absent), the IDs it lists (each already configured),
 * or its own block, whose IDs join the plan's list (an ID already there is the same identity).
 */
function resolveWorkloadClients(
  source: WorkloadSource,
  context: WorkloadContext,
  clients: ClientPlan[],
  problems: Problem[],
): WeightedIndex[] {
  const given = source.settings.clients;
  const pointer = `${source.pointer}/clients`;
  if (given === undefined) return context.clients.map((client, index) => ({ index, weight: client.weight }));
  if (Array.isArray(given)) {
    return given.flatMap((id, i) => {
      const index = clients.findIndex((client) => client.id === id);
      if (index >= 0) return [{ index, weight: clients[index]!.weight }];
      const known = clients.slice(0, 5).map((client) => client.id);
      problems.push(
        expected(
          `${pointer}/${i}`,
          `a configured client ID (${known.join(', ')}${clients.length > known.length ? ', …' : ''}) or a clients block`,
          id,
        ),
      );
      return [];
    });
  }
  // A workload's own block: its secret, when it states none, is the top-level clients' one.
  const inherited = 'secret' in context.clientsSettings ? context.clientsSettings.secret : undefined;
  const settings =
    'list' in given || given.secret !== undefined || inherited === undefined ? given : { ...given, secret: inherited };
  const own = resolveClients(settings, { ...context.clientsContext, pointer, count: undefined }, problems);
  return own.map((client) => {
    const existing = clients.findIndex((c) => c.id === client.id);
    if (existing < 0) {
      clients.push(client);
      return { index: clients.length - 1, weight: client.weight };
    }
    if (clients[existing]!.secret !== client.secret)
      problems.push({
        path: pointer,
        message: `expected one secret per client ID, found ${JSON.stringify(client.id)} configured again with another secret`,
      });
    return { index: existing, weight: client.weight };
  });
}

/** A workload's scenarios with their weights here: every scenario (absent), names, or names with weights. */
function resolveWorkloadScenarios(
  source: WorkloadSource,
  scenarios: readonly ScenarioPlan[],
  problems: Problem[],
): WeightedIndex[] {
  const given = source.settings.scenarios;
  const pointer = `${source.pointer}/scenarios`;
  if (given === undefined) return scenarios.map((scenario, index) => ({ index, weight: scenario.weight }));
  const entries: [string, number | undefined, string][] = Array.isArray(given)
    ? given.map((name, i) => [name, undefined, `${pointer}/${i}`])
    : Object.entries(given).map(([name, weight]) => [name, weight, childPointer(pointer, name)]);
  return entries.flatMap(([name, weight, at]) => {
    const index = scenarios.findIndex((scenario) => scenario.name === name);
    if (index >= 0) return [{ index, weight: weight ?? scenarios[index]!.weight }];
    problems.push(
      expected(at, `a scenario of the profile (${scenarios.map((s) => s.name).join(', ') || 'none'})`, name),
    );
    return [];
  });
}

/** A workload's one load, as its phases (one for iterations and for a replay), and a replay's settings. */
function resolveOwnLoad(
  source: WorkloadSource,
  workload: number,
  overrides: WorkloadOverrides,
  context: WorkloadContext,
  problems: Problem[],
): { phases: PhasePlan[]; replaySettings?: ReturnType<typeof resolveReplaySettings> } {
  const { settings, pointer } = source;
  const rawItem = isRecord(source.rawItem) ? source.rawItem : source.legacy ? context.raw : {};
  const given = source.legacy ? [] : LOAD_KEYS.filter((key) => rawItem[key] !== undefined);
  if (!source.legacy && given.length !== 1 && !(given.length === 0 && overrides.replay !== undefined))
    problems.push({
      path: pointer,
      message: `expected exactly one of "phases", "iterations" and "replay" (its load), found ${given.length === 0 ? 'none' : given.join(' and ')}`,
    });
  if (
    overrides.replay !== undefined ||
    settings.replay !== undefined ||
    (source.legacy && context.raw.replay !== undefined)
  ) {
    const section = {
      ...(settings.replay ?? {}),
      ...(overrides.replay === undefined ? {} : { file: overrides.replay }),
    };
    const replaySettings = resolveReplaySettings(
      section,
      context.baseDir,
      problems,
      source.legacy ? '/replay' : `${pointer}/replay`,
    );
    // Its length comes from its recording (prepareReplay): a placeholder until it is scanned.
    const phase: PhasePlan = { name: 'replay', workload, durationMs: 0, load: REPLAY_LOAD, arrivals: 'uniform' };
    return { phases: [phase], replaySettings };
  }
  if (settings.iterations !== undefined) {
    const flag = loadFlagOf({ ...overrides, durationMs: undefined });
    if (flag !== null)
      problems.push({
        path: flag,
        message: `expected only --duration (its longest run) for workload "${settings.name ?? D.workload.name}", which runs ${settings.iterations} iterations per client`,
      });
    const maxMs = durationMs(
      settings.maxDuration ?? D.workload.maxDuration,
      `${pointer}/maxDuration`,
      problems,
      POSITIVE,
    );
    const phase: PhasePlan = {
      name: 'iterations',
      workload,
      durationMs: overrides.durationMs ?? maxMs,
      load: iterationsLoad(settings.iterations),
      arrivals: 'uniform',
    };
    return { phases: [phase] };
  }
  const rawPhases = source.legacy ? context.raw.phases : rawItem.phases;
  return {
    phases: resolvePhases(rawPhases, overrides, problems, {
      pointer: source.legacy ? '/phases' : `${pointer}/phases`,
      workload,
      arrivals: settings.arrivals ?? D.phase.arrivals,
    }),
  };
}
