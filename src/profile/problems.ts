/**
 * Profile problems: what one is, how it is worded, and how all of a file's problems are ordered and
 * reported at once (exit 2).
 */
import { RpcloadError } from '../errors.ts';
import { redactSecrets, REDACTED } from '../util/redact.ts';

/**
 * One thing wrong with a profile (or with a flag that overrides it). `path` is a JSON pointer into
 * the profile (`/phases/1/rate`, '' for the whole document) or a flag name (`--duration`).
 */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

/**
 * Problems of one profile file, reported all at once: `message` has one line per problem,
 * `file: /path: expected …, found …`, in document order (exit 2).
 */
export class ProfileError extends RpcloadError {
  constructor(
    readonly file: string,
    readonly problems: readonly Problem[],
  ) {
    const code = problems.every((p) => p.path.startsWith('--')) ? 'bad_flag' : 'bad_profile';
    super(code, problems.map((problem) => formatProblem(file, problem)).join('\n'));
  }
}

/** `file: /json/pointer: message`, one printable line; flag problems are `--flag: message`. */
export function formatProblem(file: string, problem: Problem): string {
  if (problem.path.startsWith('--')) return printableLine(`${problem.path}: ${problem.message}`);
  return printableLine(`${file || '(profile)'}: ${problem.path || '/'}: ${problem.message}`);
}

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A problem as one printable line: a key or a value of the file may hold a newline, an escape
 * sequence or a bidi override (`"durati\n"` in JSON), written here as JSON writes it, so each
 * problem stays one line and the terminal shows what the file has.
 */
function printableLine(line: string): string {
  return line.replace(UNPRINTABLE, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Append one segment to a JSON pointer (RFC 6901 escaping). */
export function childPointer(pointer: string, key: string | number): string {
  return `${pointer}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

const FOUND_MAX_CHARS = 60;

/**
 * Describe an offending value for "found …". Values under secret-ish keys (the last segment of
 * `pointer`, judged by the same rule as result redaction) are never shown.
 */
export function describeFound(value: unknown, pointer: string): string {
  if (value === undefined) return 'nothing';
  const key = pointer.slice(pointer.lastIndexOf('/') + 1);
  if (key !== '' && redactSecrets({ [key]: 'probe' })[key] === REDACTED) return 'a value (not shown: secret)';
  const text = JSON.stringify(value);
  return text.length > FOUND_MAX_CHARS ? `${text.slice(0, FOUND_MAX_CHARS - 1)}…` : text;
}

/** The usual problem shape: `expected <what>, found <value>`. */
export function expected(pointer: string, what: string, found: unknown): Problem {
  return { path: pointer, message: `expected ${what}, found ${describeFound(found, pointer)}` };
}

/**
 * A checker that the names of a list's items are unique. A repeat is reported at the later item's
 * `name`, or at the item itself when its name is a default ("phase-2").
 */
export function uniqueNames(
  kind: string,
  problems: Problem[],
): (name: string, index: number, itemPointer: string, explicit: boolean) => void {
  const firstIndex = new Map<string, number>();
  return (name, index, itemPointer, explicit) => {
    const earlier = firstIndex.get(name);
    if (earlier === undefined) firstIndex.set(name, index);
    else
      problems.push(
        expected(
          explicit ? `${itemPointer}/name` : itemPointer,
          `a unique ${kind} name (${kind} ${earlier + 1} is also "${name}")`,
          name,
        ),
      );
  };
}

/**
 * Order problems as they appear in the document (pre-order walk of `document`), keeping each
 * source's order among problems at one place, and drop repeats of an identical problem. A problem
 * about something missing sorts at the end of its nearest existing ancestor; flag problems first.
 */
export function inDocumentOrder(document: unknown, problems: readonly Problem[]): Problem[] {
  const start = new Map<string, number>();
  const end = new Map<string, number>();
  let next = 0;
  const walk = (node: unknown, pointer: string): void => {
    start.set(pointer, next++);
    if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) walk(child, childPointer(pointer, key));
    }
    end.set(pointer, next - 1);
  };
  walk(document, '');
  const rank = (path: string): number => {
    if (path.startsWith('--')) return -1;
    for (let p = path; p !== ''; p = p.slice(0, p.lastIndexOf('/'))) {
      const at = start.get(p);
      if (at !== undefined) return p === path ? at : end.get(p)! + 0.5;
    }
    return path === '' ? 0 : end.get('')! + 0.5;
  };
  const unique = new Map(problems.map((p) => [`${p.path}\n${p.message}`, p]));
  return [...unique.values()]
    .map((problem, index) => ({ problem, index, rank: rank(problem.path) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.problem);
}
