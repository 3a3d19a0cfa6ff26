/**
 * wrk (Debian package `wrk`, written in C) as the ceiling reference: one thread, the same
 * connections and request as the other tools (a Lua script sets the method, body and headers),
 * `--latency` for its percentiles. Its figure is the honest distance to what this machine and
 * target can do at all.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findOrInstall } from './system-tool.ts';
import type { ToolCount } from './tool-spec.ts';

const CANDIDATES = ['/usr/bin/wrk', '/usr/local/bin/wrk'];

/** wrk's path, installing the Debian package when root and missing; null when absent. */
export function findWrk(allowInstall: boolean, log: (line: string) => void): string | null {
  return findOrInstall('wrk', CANDIDATES, 'wrk', allowInstall, log);
}

/** The first line of `wrk -v`, e.g. "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer". */
export function wrkVersion(binary: string): string {
  const result = spawnSync(binary, ['-v'], { encoding: 'utf8' });
  const line = `${result.stdout}${result.stderr}`.split('\n')[0]?.trim() ?? '';
  return line.replace(/\s*Copyright.*$/, '') || 'wrk';
}

/**
 * A double-quoted Lua string literal: quote and backslash escaped, bytes outside printable ASCII
 * as three-digit decimal escapes (Lua reads up to three digits, so a shorter one could swallow a
 * digit that follows).
 */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${String(byte).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/**
 * Printed by the script's `done` hook: wrk reports a script that fails to load on stderr and then
 * sends plain GETs, so the parser insists on this line to know the request was the bench's.
 */
export const WRK_SCRIPT_MARKER = 'rpcload-bench: request script ran';

/** Write the Lua script that makes wrk send POST `body` with `headers`; returns its path. */
export function writeWrkScript(dir: string, headers: Readonly<Record<string, string>>, body: string): string {
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = ${luaString(body)}`,
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
    `function done(summary, latency, requests) io.write(${luaString(`${WRK_SCRIPT_MARKER}\n`)}) end`,
  ];
  const path = join(dir, 'wrk-request.lua');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** The command line: one thread, `connections` connections, `durationS`, the script, --latency. */
export function wrkArgv(
  binary: string,
  options: { url: string; script: string; connections: number; durationS: number },
): string[] {
  return [
    binary,
    '-t',
    '1',
    '-c',
    String(options.connections),
    '-d',
    `${options.durationS}s`,
    '-s',
    options.script,
    '--latency',
    options.url,
  ];
}

const TIME_UNITS_S: Readonly<Record<string, number>> = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** A wrk time such as "405.00us", "2.53ms" or "1.10s" in seconds. */
function seconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (match === null) throw new Error(`wrk: unreadable time ${JSON.stringify(text)}`);
  return Number(match[1]) * TIME_UNITS_S[match[2]!]!;
}

/**
 * wrk's figures from its text output: "N requests in T", "Requests/sec:", the 50 % and 99 % lines
 * of the latency distribution, socket errors and non-2xx/3xx responses as failures.
 */
export function parseWrkOutput(stdout: string): ToolCount {
  const need = (pattern: RegExp, what: string): RegExpExecArray => {
    const match = pattern.exec(stdout);
    if (match === null) throw new Error(`wrk's output has no ${what}: ${JSON.stringify(stdout.slice(0, 300))}`);
    return match;
  };
  if (!stdout.includes(WRK_SCRIPT_MARKER))
    throw new Error(
      `wrk did not run the request script (see its error above): ${JSON.stringify(stdout.slice(0, 300))}`,
    );
  const total = need(/^\s*(\d+) requests in ([\d.]+\w+),/m, '"N requests in T" line');
  const perS = need(/^Requests\/sec:\s*([\d.]+)/m, '"Requests/sec:" line');
  const p50 = need(/^\s*50%\s+([\d.]+\w+)/m, '50% latency (was --latency given?)');
  const p99 = need(/^\s*99%\s+([\d.]+\w+)/m, '99% latency (was --latency given?)');
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout);
  return {
    requests: Number(total[1]),
    durationS: seconds(total[2]!),
    requestsPerS: Number(perS[1]),
    p50Ms: seconds(p50[1]!) * 1000,
    p99Ms: seconds(p99[1]!) * 1000,
    failures: (socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0)) + Number(non2xx?.[1] ?? 0),
  };
}
