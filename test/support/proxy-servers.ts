/**
 * Real HTTP servers that are not ours, started for a test on 127.0.0.1: nginx (Debian's
 * nginx-light) and HAProxy (Debian's haproxy), each from a configuration written into a temp dir,
 * logging one line per request to a file the test reads back (the server's own count of what it
 * received). The caller checks the program with requireProgram first and skips without it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './prometheus-text.ts';
import { sleep } from './server-helpers.ts';

export interface ProxyServer {
  readonly url: string;
  readonly port: number;
  /** The access log's lines so far (one per request the server handled). */
  accessLog(): string[];
  close(): Promise<void>;
}

/** Resolves once 127.0.0.1:port accepts connections (deadline `timeoutMs`), or throws. */
async function accepting(port: number, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && alive()) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`nothing accepted connections on ${port} within ${timeoutMs} ms`);
}

async function startProgram(
  program: string,
  args: readonly string[],
  port: number,
  logFile: string,
  errorFile: string,
  output: 'ignore' | 'log',
): Promise<ProxyServer> {
  const child: ChildProcess = spawn(program, args, { stdio: ['ignore', output === 'log' ? 'pipe' : 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // HAProxy logs to its stdout (`log stdout`): collected into the log file as it comes.
  if (output === 'log') child.stdout?.on('data', (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' }));
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    await accepting(port, 10_000, () => !exited);
  } catch (err) {
    child.kill('SIGKILL');
    const log = existsSync(errorFile) ? readFileSync(errorFile, 'utf8') : '';
    throw new Error(`${program} did not start: ${(err as Error).message}\n${stderr}${log}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    accessLog: () =>
      existsSync(logFile)
        ? readFileSync(logFile, 'utf8')
            .split('\n')
            .filter((line) => line !== '')
        : [],
    close: async () => {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([gone, sleep(5000)]);
      if (!exited) child.kill('SIGKILL');
    },
  };
}

/**
 * nginx serving `server` (the body of its one `server` block, without `listen`) with the `http`
 * block's `http` lines before it; the access log has one `$status $request_uri $http_host` line per
 * request.
 */
export async function startNginx(nginx: string, dir: string, http: string, server: string): Promise<ProxyServer> {
  mkdirSync(join(dir, 'tmp'), { recursive: true });
  const port = await freePort();
  const logFile = join(dir, 'access.log');
  const errorFile = join(dir, 'error.log');
  const config = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${errorFile} warn;
events { worker_connections 1024; }
http {
  log_format counted '$status $request_uri $http_host';
  access_log ${logFile} counted;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  default_type application/json;
  ${http}
  server {
    listen 127.0.0.1:${port};
    ${server}
  }
}
`;
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, config);
  return startProgram(nginx, ['-p', dir, '-e', errorFile, '-c', file], port, logFile, errorFile, 'ignore');
}

/** One line of HAProxy's access log as startHaproxy writes it. */
export interface HaproxyLogLine {
  /** The status HAProxy got for the request (-1: none); not necessarily one the client received. */
  readonly status: number;
  /** HAProxy's termination state: `--` when the exchange ended normally, e.g. `SD` when the server side aborted. */
  readonly termination: string;
  /** Bytes HAProxy sent to the client for it (0: the client received nothing). */
  readonly bytesSent: number;
  /** The request line, e.g. `POST /api/ping HTTP/1.1`. */
  readonly request: string;
}

/** HAProxy's access log (startHaproxy's format), parsed. */
export function haproxyLog(proxy: ProxyServer): HaproxyLogLine[] {
  return proxy.accessLog().flatMap((line) => {
    const match = /^(-?\d+) (\S+) (\d+) (.*)$/.exec(line);
    if (match === null) return [];
    return [{ status: Number(match[1]), termination: match[2]!, bytesSent: Number(match[3]), request: match[4]! }];
  });
}

/**
 * HAProxy's access log once it has stopped growing (unchanged for 300 ms, at most 5 s): HAProxy
 * writes a request's line when its stream ends, which for a request answered before its body was
 * read can be a moment after the client already counted the answer.
 */
export async function settledHaproxyLog(proxy: ProxyServer): Promise<HaproxyLogLine[]> {
  const deadline = Date.now() + 5_000;
  let lines = proxy.accessLog().length;
  let stableSince = Date.now();
  while (Date.now() - stableSince < 300 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = proxy.accessLog().length;
    if (now !== lines) [lines, stableSince] = [now, Date.now()];
  }
  return haproxyLog(proxy);
}

/**
 * HAProxy in HTTP mode on a free port, with `defaults` lines added to its defaults section and
 * `frontend` lines to its one frontend (e.g. `default_backend api` and a backend in `backends`);
 * the access log (HAProxy's, on its stdout) has one `<status> <termination state> <bytes sent>
 * <request line>` line per request (see haproxyLog).
 */
export async function startHaproxy(haproxy: string, dir: string, defaults: string, frontend: string, backends = '') {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const logFile = join(dir, 'access.log');
  const config = `global
  log stdout format raw local0
defaults
  mode http
  log global
  log-format "%ST %ts %B %r"
  timeout connect 2s
  timeout client 10s
  timeout server 10s
  ${defaults}
frontend api
  bind 127.0.0.1:${port}
  ${frontend}
${backends}
`;
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  return startProgram(haproxy, ['-db', '-f', file], port, logFile, join(dir, 'none'), 'log');
}
