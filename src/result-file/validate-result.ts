/**
 * Validation against the `rpcload/result@1` schema, with every problem worded for people
 * (`/json/path: expected …, found …`).
 */
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { RunResultSchema } from '../contract/result-schema.ts';

/** Problems listed at most; a file that is something else entirely should not flood the terminal. */
export const MAX_PROBLEMS = 50;

// RFC 3339 date-time (what toISOString writes; offsets allowed). TypeBox checks no format it
// does not know, so the schema's `format: date-time` needs this registered once.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));

interface SchemaFacts {
  const?: unknown;
  anyOf?: TSchema[];
  type?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  format?: string;
}

/** What a schema wants, in words: `an integer ≥ 0`, `one of "pass", "fail"`, `an object or null`. */
export function describeSchema(schema: TSchema): string {
  const s = schema as SchemaFacts;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) {
    const options = s.anyOf.map(describeSchema);
    return s.anyOf.every((o) => (o as SchemaFacts).const !== undefined)
      ? `one of ${options.join(', ')}`
      : options.join(' or ');
  }
  const bound =
    s.minimum !== undefined ? ` ≥ ${s.minimum}` : s.exclusiveMinimum !== undefined ? ` > ${s.exclusiveMinimum}` : '';
  switch (s.type) {
    case 'integer':
      return `an integer${bound}`;
    case 'number':
      return `a number${bound}`;
    case 'string':
      return s.format === 'date-time'
        ? 'an ISO 8601 date-time string'
        : (s.minLength ?? 0) > 0
          ? 'a non-empty string'
          : 'a string';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    default:
      return 'a valid value';
  }
}

/** A found value, short and terminal-safe (JSON.stringify escapes control characters). */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const jsType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/**
 * A union's member the value was evidently meant to be (the only one of its JSON type), so that
 * `{"scheduleLagMs": {"p50": "x"}}` reports the bad field, not "expected an object or null".
 */
function intendedMember(error: ValueError): TSchema | undefined {
  const members = (error.schema as SchemaFacts).anyOf ?? [];
  const type = jsType(error.value);
  const matching = members.filter((m) => {
    const t = (m as SchemaFacts).type;
    return t === type || (t === 'number' && type === 'integer');
  });
  return matching.length === 1 && (matching[0] as SchemaFacts).const === undefined ? matching[0] : undefined;
}

function* problemsOf(schema: TSchema, value: unknown, prefix: string): Generator<string> {
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, value)) {
    const path = prefix + error.path;
    if (seen.has(path)) continue;
    seen.add(path);
    if (error.type === ValueErrorType.ObjectAdditionalProperties) {
      yield `${path}: expected no such property (not part of rpcload/result@1), found ${describeFound(error.value)}`;
      continue;
    }
    const member = error.type === ValueErrorType.Union ? intendedMember(error) : undefined;
    if (member !== undefined) yield* problemsOf(member, error.value, path);
    else yield `${path || '/'}: expected ${describeSchema(error.schema)}, found ${describeFound(error.value)}`;
  }
}

/**
 * Every way `value` breaks the `rpcload/result@1` schema, one line each as
 * `/json/path: expected …, found …` (at most MAX_PROBLEMS, then a count); empty when valid.
 */
export function validateRunResult(value: unknown): string[] {
  const problems: string[] = [];
  let more = 0;
  for (const problem of problemsOf(RunResultSchema, value, '')) {
    if (problems.length < MAX_PROBLEMS) problems.push(problem);
    else more++;
  }
  if (more > 0) problems.push(`… and ${more} more problems`);
  return problems;
}
