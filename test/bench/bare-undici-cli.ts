/**
 * The bench's reference row: a bare undici dispatch loop (bare-undici-loop.js) run as its own
 * command, like the tools, so that its CPU per request is measured the same way — the floor of any
 * client built on undici, with no rpcload code around it.
 */
import { fileURLToPath } from 'node:url';
import type { ToolCount } from './tool-spec.ts';

const LOOP = fileURLToPath(new URL('./bare-undici-loop.js', import.meta.url));

/** The command line: POST `body` with `headers` to `url` over `connections` undici Clients for `durationS`. */
export function bareUndiciArgv(options: {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly connections: number;
  readonly durationS: number;
}): string[] {
  return [
    process.execPath,
    LOOP,
    options.url,
    String(options.durationS),
    String(options.connections),
    JSON.stringify(options.headers),
    options.body,
  ];
}

/** The loop's count from its one JSON line; it measures no latency (p50/p99 are 0). */
export function parseBareUndiciJson(stdout: string): ToolCount {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  const json = JSON.parse(line || '{}') as Partial<{ requests: number; durationS: number; errors: number }>;
  const { requests, durationS, errors } = json;
  if (typeof requests !== 'number' || typeof durationS !== 'number' || typeof errors !== 'number' || durationS <= 0)
    throw new Error(`the bare undici loop printed no count: ${JSON.stringify(stdout.slice(0, 200))}`);
  return { requests, durationS, requestsPerS: requests / durationS, p50Ms: 0, p99Ms: 0, failures: errors };
}
