/**
 * A profile built from `rpcload run` flags alone — `--target URL --client ID:SECRET --method
 * NAME[:JSON_ARGS][@WEIGHT] …` — so a first load test of one's own API needs no profile file, as
 * with oha or Vegeta. The flags become a plain profile object that goes through the same
 * validation and resolution as a file; the load flags (`--rate`, `--duration`, `--stages`, `-n`)
 * then reshape its one default phase exactly as they reshape a file's phases.
 */
import { isMethodName, METHOD_NAME_EXPECTED } from '../api/http-call.ts';
import { RpcloadError } from '../errors.ts';
import { definedFields } from '../util/defined-fields.ts';
import { resolvePlan, type PlanOverrides } from './build-plan.ts';
import { clientsFromFlags, parsePaginatedFlag, type ClientFlags } from './client-flags.ts';
import type { Plan } from './plan.ts';
import { ProfileError } from './problems.ts';

/** The flags that describe what to send, from whom. */
export interface InlineProfileFlags extends ClientFlags {
  readonly target?: string;
  /** `NAME[:JSON_ARGS][@WEIGHT]`, repeatable. */
  readonly method?: readonly string[];
  /** `NAME[:ARRAYFIELD]`: walk this method's `next` cursors (the field is verify's business). */
  readonly paginated?: readonly string[];
  readonly tokenMethod?: string;
  readonly clientAuth?: 'post' | 'basic';
  /** `--clients N`: how many clients `--client-pattern` makes (default INLINE_PATTERN_CLIENTS). */
  readonly clients?: number;
  /** `--replay FILE`: the calls come from a recording, so no --method is needed. */
  readonly replay?: string;
}

/** The load of the one phase when no load flag is given: gentle enough for one client's quota. */
export const INLINE_DEFAULT_PHASE = { name: 'cli', duration: '10s', rate: 5 } as const;
/** Clients made by `--client-pattern` without `--clients`. */
export const INLINE_PATTERN_CLIENTS = 10;

/** Whether the flags ask for a profile built from flags rather than a profile file. */
export function wantsInlineProfile(flags: InlineProfileFlags): boolean {
  return (
    flags.method !== undefined ||
    flags.paginated !== undefined ||
    flags.client !== undefined ||
    flags.clientPattern !== undefined ||
    flags.target !== undefined
  );
}

/** One `--method` value: `NAME`, `NAME:{"a":1}`, `NAME@3`, `NAME:{"a":1}@3`. */
export interface MethodFlag {
  readonly method: string;
  readonly args: Readonly<Record<string, unknown>> | undefined;
  readonly weight: number | undefined;
}

function badMethod(expectedWhat: string, value: string): never {
  throw new RpcloadError('bad_flag', `--method: expected ${expectedWhat}, found ${JSON.stringify(value)}`);
}

/** Parse `NAME[:JSON_ARGS][@WEIGHT]`; a trailing `@number` is a weight unless it belongs to the JSON. */
export function parseMethodFlag(value: string): MethodFlag {
  const nameEnd = value.search(/[:@]/);
  const method = nameEnd === -1 ? value : value.slice(0, nameEnd);
  if (!isMethodName(method)) badMethod(`NAME[:JSON_ARGS][@WEIGHT] with ${METHOD_NAME_EXPECTED}`, value);
  let rest = nameEnd === -1 ? '' : value.slice(nameEnd);
  let weight: number | undefined;
  const at = /@(\d+(?:\.\d+)?)$/.exec(rest);
  if (at && (rest.startsWith('@') || isJsonObject(rest.slice(1, at.index)))) {
    weight = Number(at[1]);
    if (!(weight > 0)) badMethod('a weight greater than 0 after @', value);
    rest = rest.slice(0, at.index);
  }
  if (rest === '') return { method, args: undefined, weight };
  if (!rest.startsWith(':')) badMethod('NAME[:JSON_ARGS][@WEIGHT]', value);
  const args = parseJsonObject(rest.slice(1));
  if (args === undefined) badMethod(`a JSON object after "${method}:" (e.g. ${method}:{"q":"x"})`, value);
  return { method, args, weight };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const isJsonObject = (text: string): boolean => parseJsonObject(text) !== undefined;

/** A profile name for the result file: the target's host, or "inline" on the embedded server. */
function profileName(target: string | undefined): string {
  if (target === undefined) return 'inline';
  try {
    return new URL(target).hostname || 'inline';
  } catch {
    return 'inline';
  }
}

/**
 * The profile the flags describe, as a plain object (validated by the caller like a file).
 * Throws a one-line RpcloadError for what only flags can get wrong: no method, a bad `--method`,
 * no client for an external target.
 */
export function buildInlineProfile(
  flags: InlineProfileFlags,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, unknown> {
  const methods = (flags.method ?? []).map(parseMethodFlag);
  const paginated = new Set((flags.paginated ?? []).map((value) => parsePaginatedFlag(value).method));
  for (const method of paginated)
    if (!methods.some((m) => m.method === method)) methods.push({ method, args: undefined, weight: undefined });
  if (methods.length === 0 && flags.replay === undefined)
    throw new RpcloadError(
      'no_method',
      'no method to call: pass --method NAME[:JSON_ARGS][@WEIGHT] (repeatable), e.g. --method ping --method \'search:{"q":"x"}@3\', or a profile file',
    );
  const clients = clientsFromFlags(flags, flags.clients ?? INLINE_PATTERN_CLIENTS, env);
  if (clients.length === 0 && flags.target !== undefined)
    throw new RpcloadError(
      'no_clients',
      'no client to send as: pass --client ID:SECRET (repeatable), --client-pattern app-{n}:SECRET with --clients N, or ID / PATTERN with --secret-env VAR',
    );
  const names = new Map<string, number>();
  const scenarios = methods.map(({ method, args, weight }) => {
    const seen = (names.get(method) ?? 0) + 1;
    names.set(method, seen);
    return definedFields({
      name: seen === 1 ? method : `${method}-${seen}`,
      weight,
      steps: [definedFields({ method, args, paginate: paginated.has(method) ? true : undefined })],
    });
  });
  const auth = definedFields({ tokenMethod: flags.tokenMethod, clientAuth: flags.clientAuth });
  // A document like a profile file's: a field the flags do not set is absent, not undefined.
  return definedFields({
    name: profileName(flags.target),
    target: flags.target,
    auth: Object.keys(auth).length === 0 ? undefined : auth,
    clients: clients.length === 0 ? undefined : { list: clients.map(({ id, secret }) => ({ id, secret })) },
    // A replay brings its own calls and timing (its settings come from the flags, see replay-settings.ts).
    ...(flags.replay === undefined
      ? { scenarios, phases: [{ ...INLINE_DEFAULT_PHASE }] }
      : { replay: { file: flags.replay } }),
  });
}

/** The plan of a profile built from flags; its problems are reported as the command line's. */
export function inlinePlan(
  flags: InlineProfileFlags,
  overrides: PlanOverrides,
  env: NodeJS.ProcessEnv = process.env,
): Plan {
  const profile = buildInlineProfile(flags, env);
  const { plan, problems } = resolvePlan(profile, { source: '', overrides });
  if (!plan) throw new ProfileError(INLINE_SOURCE, problems);
  return plan;
}

/** How problems of a profile built from flags name their "file". */
export const INLINE_SOURCE = '(command line)';
