/**
 * Which shard of which run this process carries (`run --shard I/N`, or the same from the
 * environment of a Kubernetes Indexed Job or a CI matrix), the run id every shard shares, and the
 * wall-clock instant at which they all start (`--start-at`). Shards are processes that know
 * nothing of each other: everything they agree on comes from these values, so they are resolved
 * and checked here once, before any token is fetched.
 */
import { createHash } from 'node:crypto';
import { RpcloadError } from '../../errors.ts';
import type { Plan } from '../../profile/plan.ts';
import { shardPlan } from '../workers/shard-plan.ts';

/** One shard of a sharded run, as agreed by every shard. */
export interface ShardSpec {
  /** This shard, counted from 1. */
  readonly index: number;
  readonly count: number;
  /** Shared by every shard of the run; `merge` refuses files of different runs. */
  readonly runId: string;
}

/** The environment variables a shard reads (documented in docs/distributed.md). */
export const SHARD_ENV = {
  /** `I/N`, as `--shard`. */
  shard: 'RPCLOAD_SHARD',
  /** N, with a 0-based index from JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs). */
  count: 'RPCLOAD_SHARDS',
  completionIndex: 'JOB_COMPLETION_INDEX',
  runId: 'RPCLOAD_RUN_ID',
  startAt: 'RPCLOAD_START_AT',
} as const;

/** The furthest ahead a start instant may lie: a typo in a date must not park a CI job for days. */
const MAX_START_AHEAD_MS = 24 * 3600_000;
/**
 * The longest a start instant may have passed: a shard a little late (a slow image pull) starts at
 * once, with a warning; one hours late holds a stale instant (last night's RPCLOAD_START_AT).
 */
const MAX_START_BEHIND_MS = 5 * 60_000;

/** Parse `I/N` (1 ≤ I ≤ N); `from` names the flag or variable for the error. */
export function parseShard(text: string, from: string): { index: number; count: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (
    match === null ||
    !Number.isSafeInteger(index) ||
    !Number.isSafeInteger(count) ||
    index < 1 ||
    count < 1 ||
    index > count
  ) {
    throw new RpcloadError('bad_flag', `${from}: expected I/N with 1 ≤ I ≤ N, e.g. 2/4, found ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/**
 * The shard from the environment: RPCLOAD_SHARD=I/N, or a 0-based JOB_COMPLETION_INDEX (which a
 * Kubernetes Indexed Job sets in every pod) together with RPCLOAD_SHARDS=N. Null when neither is
 * set; JOB_COMPLETION_INDEX alone is not a shard (any Indexed Job sets it).
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv): { index: number; count: number } | null {
  const shard = env[SHARD_ENV.shard];
  if (shard !== undefined && shard !== '') return parseShard(shard, SHARD_ENV.shard);
  const countText = env[SHARD_ENV.count];
  if (countText === undefined || countText === '') return null;
  const indexText = env[SHARD_ENV.completionIndex];
  if (indexText === undefined || !/^\d+$/.test(indexText)) {
    throw new RpcloadError(
      'bad_flag',
      `${SHARD_ENV.count}=${countText} needs ${SHARD_ENV.completionIndex} (0-based, set by a Kubernetes Indexed Job), found ${JSON.stringify(indexText ?? '')}`,
    );
  }
  return parseShard(`${Number(indexText) + 1}/${countText}`, `${SHARD_ENV.completionIndex}+1 / ${SHARD_ENV.count}`);
}

/**
 * Parse a start instant: an ISO 8601 date-time with a time zone (e.g. 2026-11-25T02:00:00Z) or
 * Unix seconds. Refused when it lies more than a day ahead of `nowMs`; a run also refuses one
 * passed long ago (see resolveShardOptions).
 */
export function parseStartAt(text: string, from: string, nowMs: number): number {
  const trimmed = text.trim();
  const epochMs = /^\d+(\.\d+)?$/.test(trimmed)
    ? Number(trimmed) * 1000
    : /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed)
      ? Date.parse(trimmed)
      : Number.NaN;
  if (!Number.isFinite(epochMs)) {
    throw new RpcloadError(
      'bad_flag',
      `${from}: expected an ISO 8601 time with a zone (e.g. 2026-11-25T02:00:00Z) or Unix seconds, found ${JSON.stringify(text)}`,
    );
  }
  if (epochMs - nowMs > MAX_START_AHEAD_MS) {
    throw new RpcloadError(
      'bad_flag',
      `${from}: ${new Date(epochMs).toISOString()} is more than 24 h ahead; expected a start within the next day`,
    );
  }
  return epochMs;
}

/**
 * The run id: given (--run-id / RPCLOAD_RUN_ID), or derived from the profile and the agreed start
 * instant, which every shard knows alike. Without either, shards could not tell their run from
 * last night's, so a run of more than one shard needs one of them.
 */
export function resolveRunId(
  given: string | undefined,
  plan: Pick<Plan, 'name'>,
  startAtMs: number | null,
  count: number,
): string {
  if (given !== undefined && given.trim() !== '') {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(given.trim())) {
      throw new RpcloadError(
        'bad_flag',
        `--run-id: expected letters, digits, '.', '_' or '-' (at most 128), found ${JSON.stringify(given)}`,
      );
    }
    return given.trim();
  }
  if (startAtMs !== null) {
    const stamp = new Date(startAtMs)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z');
    const slug = plan.name.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40) || 'run';
    const digest = createHash('sha256').update(`${plan.name}\n${startAtMs}`).digest('hex').slice(0, 8);
    return `${slug}-${stamp}-${digest}`;
  }
  if (count === 1)
    return `single-${createHash('sha256').update(`${plan.name}\n${Date.now()}\n${Math.random()}`).digest('hex').slice(0, 12)}`;
  throw new RpcloadError(
    'bad_flag',
    `a run of ${count} shards needs a shared run id: pass --run-id ID (or ${SHARD_ENV.runId}) or --start-at TIME (or ${SHARD_ENV.startAt}) to every shard`,
  );
}

/** This shard's share of the plan: every N-th client and its weight's share of the load. */
export function planForShard(plan: Plan, shard: Pick<ShardSpec, 'index' | 'count'>): Plan {
  if (shard.count === 1) return plan;
  const part = shardPlan(plan, shard.index - 1, shard.count);
  if (part.clients.length === 0) {
    throw new RpcloadError(
      'bad_flag',
      `shard ${shard.index}/${shard.count} has no clients: the profile has ${plan.clients.length} client IDs, so at most ${plan.clients.length} shards (each client runs on exactly one shard)`,
    );
  }
  // The seed moves per shard as well as per worker: shards must not replay the same random stream.
  // Its trace ids come from the shard's own stream (its worker threads each split it again).
  return { ...part, seed: plan.seed + shard.index * 7919, trace: { ...part.trace, stream: shard.index * 65_536 } };
}

/** The sharding flags of `run` (each may also come from the environment: see SHARD_ENV). */
export interface ShardFlags {
  readonly shard?: string;
  readonly runId?: string;
  readonly startAt?: string;
}

/**
 * Flags first, then the environment: this process's shard (null = not sharded) and start instant.
 * A start instant passed more than MAX_START_BEHIND_MS ago is refused; one passed more recently is
 * accepted (the run warns, starts at once, and a shard records how late it was).
 */
export function resolveShardOptions(
  flags: ShardFlags,
  env: NodeJS.ProcessEnv,
  plan: Pick<Plan, 'name'>,
  nowMs = Date.now(),
): { shard: ShardSpec | null; startAtEpochMs: number | null } {
  const part = flags.shard !== undefined ? parseShard(flags.shard, '--shard') : shardFromEnvironment(env);
  const startText = flags.startAt ?? (env[SHARD_ENV.startAt] || undefined);
  const startFrom = flags.startAt !== undefined ? '--start-at' : SHARD_ENV.startAt;
  const startAtEpochMs = startText === undefined ? null : parseStartAt(startText, startFrom, nowMs);
  if (startAtEpochMs !== null && nowMs - startAtEpochMs > MAX_START_BEHIND_MS) {
    throw new RpcloadError(
      'bad_flag',
      `${startFrom}: ${new Date(startAtEpochMs).toISOString()} passed ${Math.round((nowMs - startAtEpochMs) / 60_000)} min ago; expected a start at most ${MAX_START_BEHIND_MS / 60_000} min in the past (a stale start instant?)`,
    );
  }
  if (part === null) return { shard: null, startAtEpochMs };
  const runId = resolveRunId(flags.runId ?? (env[SHARD_ENV.runId] || undefined), plan, startAtEpochMs, part.count);
  return { shard: { ...part, runId }, startAtEpochMs };
}
