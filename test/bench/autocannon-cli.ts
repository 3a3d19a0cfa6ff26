/**
 * autocannon as its users run it: its own command-line entry point in a separate process, with
 * `--json` so that its figures can be read from stdout.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ToolCount } from './tool-spec.ts';

const packageJson = createRequire(import.meta.url).resolve('autocannon/package.json');
/** autocannon's CLI script (what `npx autocannon` runs). */
export const AUTOCANNON_CLI = join(dirname(packageJson), 'autocannon.js');

/** The installed autocannon's version, from its package.json. */
export function autocannonVersion(): string {
  return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
}

/** The command line: POST `body` with `headers` to `url` over `connections` connections (in all) for `durationS`. */
export function autocannonArgv(options: {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly connections: number;
  readonly durationS: number;
  /** Worker threads (`-w`); 1 = autocannon's own single-threaded mode (no -w). */
  readonly workers?: number;
}): string[] {
  return [
    process.execPath,
    AUTOCANNON_CLI,
    ...((options.workers ?? 1) > 1 ? ['-w', String(options.workers)] : []),
    '-c',
    String(options.connections),
    '-d',
    String(options.durationS),
    '-m',
    'POST',
    ...Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]),
    '-b',
    options.body,
    '--json',
    options.url,
  ];
}

/** The part of autocannon's `--json` result read here. */
interface AutocannonJson {
  readonly duration: number;
  readonly requests: { readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * autocannon's figures from its `--json` stdout (one JSON line; the last one that parses is the
 * result). Requests/s is its total ÷ the duration it measured; latencies are in ms (it records
 * whole milliseconds).
 */
export function parseAutocannonJson(stdout: string): ToolCount {
  const line = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
    .at(-1);
  if (line === undefined) throw new Error(`autocannon printed no JSON result: ${JSON.stringify(stdout.slice(0, 200))}`);
  const json = JSON.parse(line) as Partial<AutocannonJson>;
  const { duration, requests, latency, non2xx, errors, timeouts } = json;
  if (
    !isNumber(duration) ||
    !isNumber(requests?.total) ||
    !isNumber(latency?.p50) ||
    !isNumber(latency.p99) ||
    !isNumber(non2xx) ||
    !isNumber(errors) ||
    !isNumber(timeouts)
  )
    throw new Error(
      `autocannon's JSON lacks duration, requests.total, latency.p50/p99, non2xx, errors or timeouts: ${line.slice(0, 200)}`,
    );
  return {
    requests: requests.total,
    durationS: duration,
    requestsPerS: requests.total / duration,
    p50Ms: latency.p50,
    p99Ms: latency.p99,
    failures: non2xx + errors + timeouts,
  };
}
