/**
 * Reading a result file for compare, merge and report: every way it can be unusable becomes one
 * user error (exit 2) naming the file.
 */
import { readFile } from 'node:fs/promises';
import { RpcloadError } from '../errors.ts';
import { MAX_JSON_DEPTH, tooDeepAt } from '../util/json-depth.ts';
import { locateJsonError } from '../util/json-error-position.ts';
import { RESULT_SCHEMA_ID, type RunResult } from '../contract/result-schema.ts';
import { histogramCountProblem } from './histograms.ts';
import { outcomeCountProblem } from './outcome-counts.ts';
import { describeFound, validateRunResult } from './validate-result.ts';

const bad = (message: string): RpcloadError => new RpcloadError('bad_result', message);

/** Parse result-file text; a syntax error names the line and column. */
function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    let where: ReturnType<typeof locateJsonError> = null;
    try {
      where = locateJsonError(text);
    } catch {
      // Nesting too deep for the scanner: fall back to JSON.parse's own words.
    }
    if (where === null) throw bad(`${path}: not valid JSON: ${(err as Error).message.split('\n')[0]}`);
    throw bad(`${path}: not valid JSON at line ${where.line}, column ${where.column}: ${where.reason}`);
  }
}

/**
 * Read and check an `rpcload/result@1` file. Every user-facing failure is an RpcloadError
 * (exit 2) naming the file: unreadable, not JSON (with line and column), another schema id,
 * schema violations — all of them, one line each, as `file: /json/path: expected …, found …` — or
 * counts that do not add up (outcomes beyond the requests, histograms of other requests).
 */
export async function readResultFile(path: string): Promise<RunResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message;
    throw bad(`${path}: cannot read the result file: ${why}`);
  }
  // Editors on Windows may add a byte order mark; it is not JSON but harmless.
  const value = parseJson(path, text.replace(/^\uFEFF/, ''));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw bad(`${path}: /: expected an rpcload result file (a JSON object), found ${describeFound(value)}`);
  }
  const deep = tooDeepAt(value);
  if (deep !== null)
    throw bad(`${path}: ${deep}: nested deeper than ${MAX_JSON_DEPTH} levels; expected an rpcload result file`);
  const schema = (value as { schema?: unknown }).schema;
  if (schema !== RESULT_SCHEMA_ID) {
    const hint =
      typeof schema === 'string' && schema.startsWith('rpcload/result@')
        ? ' (written by another rpcload version)'
        : ' (not an rpcload result file?)';
    throw bad(`${path}: /schema: expected "${RESULT_SCHEMA_ID}", found ${describeFound(schema)}${hint}`);
  }
  const problems = validateRunResult(value);
  if (problems.length > 0) throw bad(problems.map((p) => `${path}: ${p}`).join('\n'));
  const outcomes = outcomeCountProblem(value as RunResult);
  if (outcomes !== null) throw bad(`${path}: ${outcomes}`);
  const mismatch = histogramCountProblem(value as RunResult, path);
  if (mismatch !== null) throw bad(`${path}: ${mismatch}`);
  return value as RunResult;
}

/** Files read to be shown or compared side by side must be of one kind: a load run is no baseline for a verify. */
export function assertSameKind(a: { label: string; result: RunResult }, b: { label: string; result: RunResult }): void {
  // Merged files keep their shards' kind; an older 'merge' kind is a load run.
  const kindOf = (result: RunResult): string => (result.run.kind === 'merge' ? 'run' : result.run.kind);
  if (kindOf(a.result) !== kindOf(b.result))
    throw bad(
      `${b.label}: /run/kind: expected "${kindOf(a.result)}" like ${a.label}, found "${kindOf(b.result)}": a ${kindOf(b.result)} file cannot be compared with a ${kindOf(a.result)} file`,
    );
}

/** How a run that did not complete ended, in words. */
const NOT_COMPLETED: Readonly<Record<string, string>> = {
  running: 'a checkpoint: the run was still going, or died without finishing',
  aborted: 'the run was interrupted',
  failed: 'the run failed',
};

/**
 * Compare and trend judge finished runs: a checkpoint of a run still going or one that crashed
 * (`running`), an interrupted or a failed run holds only part of the load, and read as complete it
 * passes for "within noise". Refused (exit 2) unless the user allows incomplete runs.
 */
export function assertCompleted(label: string, result: RunResult, allowIncomplete: boolean): void {
  const { status } = result.run;
  if (status === 'completed' || allowIncomplete) return;
  throw bad(
    `${label}: /run/status: expected "completed", found "${status}" (${NOT_COMPLETED[status] ?? 'not a finished run'}); --allow-incomplete uses it anyway`,
  );
}
