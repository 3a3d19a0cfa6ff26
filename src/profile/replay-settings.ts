/**
 * The `replay` section of a profile (`{"file": …, "speed": 1, "loop": false, …}`) and the records a
 * replay is planned with: what it is asked to do (ReplaySettings, from that section or the flags
 * `--replay --speed --loop --from --to -n --map-clients --replay-host`) and what it became once its
 * recording was scanned (ReplayPlan, see replay-plan.ts). Schema, defaults and resolution live together.
 */
import { Type } from '@sinclair/typebox';
import { isAbsolute, resolve } from 'node:path';
import { RpcloadError } from '../errors.ts';
import { expected, type Problem } from './problems.ts';
import { durationMs, POSITIVE } from './resolve-durations.ts';
import type { RecordingFormat } from './replay-recording.ts';
import { DurationSchema } from './schema-settings.ts';

export const REPLAY_DEFAULTS = { speed: 1, loop: false, mapClients: false } as const;

export const ReplaySchema = Type.Object(
  {
    file: Type.String({
      minLength: 1,
      description:
        'The recording (path relative to the profile): JSONL, one call a line {"t": ms since the first call or an ISO 8601 instant, "client": caller, "method": name, "args": {…}}, or a HAR capture (a .har file).',
    }),
    speed: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        default: REPLAY_DEFAULTS.speed,
        description: `Recorded offsets are divided by this (2 = twice as fast, 0.5 = half). Default ${REPLAY_DEFAULTS.speed}.`,
      }),
    ),
    loop: Type.Optional(
      Type.Boolean({
        default: REPLAY_DEFAULTS.loop,
        description: `Play the window again when it ends, until "duration" or "calls". Default ${REPLAY_DEFAULTS.loop}.`,
      }),
    ),
    from: Type.Optional(
      Type.String({
        description:
          'Start of the window: a duration into the recording (e.g. "90s") or an ISO 8601 instant. Default: its first call.',
      }),
    ),
    to: Type.Optional(
      Type.String({ description: 'End of the window (exclusive), as "from". Default: after its last call.' }),
    ),
    calls: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Send at most this many calls of the window (every pass counted). Default: all.',
      }),
    ),
    duration: Type.Optional(
      DurationSchema(
        'How long the replay lasts at most: with "loop", how long it lasts; without, where a longer window is cut. ' +
          'Default: the window\'s length (with "loop": as long as "calls" take).',
      ),
    ),
    host: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "A HAR capture: the host whose POST …/api/{method} entries are the API's calls (others, e.g. a third-party " +
          'endpoint, are skipped and counted). Default: the host most of them go to.',
      }),
    ),
    mapClients: Type.Optional(
      Type.Boolean({
        default: REPLAY_DEFAULTS.mapClients,
        description: `Send a caller that has no client ID of its own in "clients" by a configured one chosen by a stable hash of its name (each caller's calls stay on one client, in order). Default ${REPLAY_DEFAULTS.mapClients}: such callers are an error.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Replay recorded traffic instead of the scenarios and phases: each call is sent at its recorded offset ÷ speed, by its caller's client ID. Default: none.",
  },
);

/** What a replay is asked to do (flags or the profile's `replay` section), before the recording is scanned. */
export interface ReplaySettings {
  /** The recording's path (a profile's, resolved against the profile's directory). */
  readonly file: string;
  /** Recorded offsets are divided by this (2 = twice as fast). */
  readonly speed: number;
  /** Start the window again when it ends, until the run's duration or `maxCalls`. */
  readonly loop: boolean;
  /** Start of the window: a duration into the recording (`90s`) or an ISO 8601 instant; null = its first call. */
  readonly from: string | null;
  /** End of the window (exclusive), as `from`; null = after its last call. */
  readonly to: string | null;
  /** `-n`: send at most this many calls of the window (counting every pass); null = all. */
  readonly maxCalls: number | null;
  /** `--map-clients`: send a caller without a configured client ID by one chosen by a stable hash of its name. */
  readonly mapClients: boolean;
  /** How long the replay lasts at most (ms): with `loop`, its length; null = the window's (or `maxCalls`'). */
  readonly durationMs: number | null;
  /** `--replay-host`: a HAR's API host; null = the host most of its API calls go to. */
  readonly host: string | null;
}

/** What the scan learned of the recording: the result file's source record is made of it. */
export interface RecordingFacts {
  /** The file's base name (its directory is the machine's business). */
  readonly fileName: string;
  readonly format: RecordingFormat;
  readonly bytes: number;
  readonly sha256: string;
  /** Calls in the whole recording. */
  readonly calls: number;
  /** Calls inside the window. */
  readonly callsInWindow: number;
  /** Records of the file not replayed, by reason (a HAR's token requests and other URLs). */
  readonly skipped: Readonly<Record<string, number>>;
  /** Distinct callers in the window, and how many of them were mapped by hash (no client ID of their own). */
  readonly callers: number;
  readonly mappedCallers: number;
  /**
   * Calls of the window recorded earlier than a call before them (a recording should be in time
   * order), and by how much at most (ms): each is due with the call before it, which it cannot pass.
   */
  readonly outOfOrder: { readonly calls: number; readonly maxMs: number };
}

/** A replay ready to run: its settings resolved against the scanned recording. */
export interface ReplayPlan {
  /** The recording's path. */
  readonly file: string;
  readonly format: RecordingFormat;
  readonly speed: number;
  readonly loop: boolean;
  readonly maxCalls: number | null;
  readonly mapClients: boolean;
  /** The window, in ms since the recording's first call: [fromMs, toMs). */
  readonly fromMs: number;
  readonly toMs: number | null;
  /**
   * JSONL: the byte where the window's first call's line starts, and its line number (a window late
   * in a large recording is not read up to).
   */
  readonly startByte: number;
  readonly startLine: number;
  /** The first call's instant (epoch ms) when the recording's `t` are instants: a read from startByte counts from it. */
  readonly originEpochMs: number | null;
  /** The file as scanned (its size is facts.bytes): the replay reads only those bytes and says so when it changed. */
  readonly mtimeMs: number;
  /** A HAR's API host (the one asked for, or the one most of its API calls go to); null for JSONL. */
  readonly host: string | null;
  /** What the scan warns about (a HAR's API calls to other hosts): warnings of the run. */
  readonly notes: readonly string[];
  /** One pass of the window at speed 1 (ms): where a loop starts its next pass. */
  readonly passMs: number;
  /** Each caller of the window and the client ID that sends its calls. */
  readonly callerClients: readonly (readonly [caller: string, clientId: string])[];
  /** The recorded methods, in the order of the plan's scenarios (one each). */
  readonly methods: readonly string[];
  readonly facts: RecordingFacts;
}

/** The profile's `replay` section as settings (its file resolved against the profile's directory). */
export function resolveReplaySettings(
  section: Record<string, unknown>,
  baseDir: string,
  problems: Problem[],
  pointer = '/replay',
): ReplaySettings {
  const file = typeof section.file === 'string' ? section.file : '';
  const length =
    typeof section.duration === 'string'
      ? durationMs(section.duration, `${pointer}/duration`, problems, POSITIVE)
      : null;
  if (section.loop === true && length === null && section.calls === undefined)
    problems.push(
      expected(pointer, 'a "duration" or a number of "calls" beside "loop": true (how long the replay lasts)', section),
    );
  return {
    file: isAbsolute(file) ? file : resolve(baseDir, file),
    speed: typeof section.speed === 'number' ? section.speed : REPLAY_DEFAULTS.speed,
    loop: section.loop === true,
    from: typeof section.from === 'string' ? section.from : null,
    to: typeof section.to === 'string' ? section.to : null,
    maxCalls: typeof section.calls === 'number' ? section.calls : null,
    mapClients: section.mapClients === true,
    durationMs: length,
    host: typeof section.host === 'string' ? section.host : null,
  };
}

/** The replay flags of `run` and `capacity`. */
export interface ReplayFlags {
  readonly replay?: string;
  readonly speed?: number;
  readonly loop?: boolean;
  readonly from?: string;
  readonly to?: string;
  /** `-n`. */
  readonly requests?: number;
  readonly mapClients?: boolean;
  readonly duration?: number;
  readonly replayHost?: string;
}

/** Flags that only mean something in a replay. */
const REPLAY_ONLY: readonly (readonly [keyof ReplayFlags, string])[] = [
  ['speed', '--speed'],
  ['loop', '--loop'],
  ['from', '--from'],
  ['to', '--to'],
  ['mapClients', '--map-clients'],
  ['replayHost', '--replay-host'],
];

/**
 * The replay the flags and the profile ask for, the flags over the profile's section; null when
 * neither asks for one. A replay-only flag without a replay is a bad flag.
 */
export function replaySettingsOf(flags: ReplayFlags, profile: ReplaySettings | undefined): ReplaySettings | null {
  if (flags.replay === undefined && profile === undefined) {
    const stray = REPLAY_ONLY.find(([key]) => flags[key] !== undefined);
    if (stray !== undefined)
      throw new RpcloadError('bad_flag', `${stray[1]}: only with --replay FILE (or a profile's replay section)`);
    return null;
  }
  return {
    file: flags.replay === undefined ? profile!.file : resolve(flags.replay),
    speed: flags.speed ?? profile?.speed ?? REPLAY_DEFAULTS.speed,
    loop: flags.loop ?? profile?.loop ?? REPLAY_DEFAULTS.loop,
    from: flags.from ?? profile?.from ?? null,
    to: flags.to ?? profile?.to ?? null,
    maxCalls: flags.requests ?? profile?.maxCalls ?? null,
    mapClients: flags.mapClients ?? profile?.mapClients ?? REPLAY_DEFAULTS.mapClients,
    durationMs: flags.duration ?? profile?.durationMs ?? null,
    host: flags.replayHost ?? profile?.host ?? null,
  };
}
