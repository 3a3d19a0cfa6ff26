/** nginx as the bench's target: found or installed, configured in a temporary prefix, started and stopped. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUCCESS_BODY, TOKEN_BODY, type BenchTarget } from './bench-target.ts';
import { freePort, waitForPort } from './free-port.ts';
import { findOrInstall } from './system-tool.ts';

/**
 * nginx (Debian's nginx-light) as the bench target on 127.0.0.1, a fixed success envelope for
 * POST /api/* and a token envelope for /api/auth.token, in a temporary prefix with a config
 * written here. One nginx worker answers far faster than any Node client can ask (wrk reaches
 * more than twice autocannon's rate against it), so the client is what is measured; the workers
 * section starts one with a worker per core, so that several rpcload threads are not limited by it.
 */
const CANDIDATES = ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx'];

/** The JSON bodies as nginx string literals (single-quoted; they contain no quote or backslash). */
const literal = (text: string): string => `'${text}'`;

function nginxConfig(prefix: string, port: number, workers: number): string {
  return `worker_processes ${workers};
daemon off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  # keep-alive connections are never closed under the bench (nginx's default closes every 1000 requests)
  keepalive_requests 1000000000;
  keepalive_timeout 600s;
  default_type application/json;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location = /api/auth.token { return 200 ${literal(TOKEN_BODY)}; }
    location /api/ { return 200 ${literal(SUCCESS_BODY)}; }
  }
}
`;
}

function nginxVersion(binary: string): string {
  const result = spawnSync(binary, ['-v'], { encoding: 'utf8' });
  return (result.stderr || result.stdout).trim().replace(/^nginx version:\s*/, '') || 'nginx';
}

/** Start nginx with `workers` worker processes, or return null when it is not installed and cannot be. */
export async function startNginx(
  log: (line: string) => void,
  allowInstall: boolean,
  workers = 1,
): Promise<BenchTarget | null> {
  const binary = findOrInstall('nginx', CANDIDATES, 'nginx-light', allowInstall, log);
  if (binary === null) return null;
  const prefix = mkdtempSync(join(tmpdir(), 'rpcload-bench-nginx-'));
  mkdirSync(join(prefix, 'tmp'));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    writeFileSync(join(prefix, 'nginx.conf'), nginxConfig(prefix, port, workers));
    const child = spawn(binary, ['-p', prefix, '-c', join(prefix, 'nginx.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let exited = false;
    child.once('exit', () => (exited = true));
    try {
      await waitForPort(port, 5000, () => !exited);
    } catch (err) {
      child.kill('SIGKILL');
      const errorLog = existsSync(join(prefix, 'error.log')) ? readFileSync(join(prefix, 'error.log'), 'utf8') : '';
      if (attempt < 3 && /in use/.test(stderr + errorLog)) continue; // lost the race for the port
      rmSync(prefix, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${(err as Error).message}\n${stderr}${errorLog}`.trim());
    }
    const stopOnExit = (): void => void child.kill('SIGTERM');
    process.once('exit', stopOnExit);
    return {
      kind: 'nginx',
      description: `${nginxVersion(binary)}, ${workers} worker${workers === 1 ? '' : 's'}`,
      url: `http://127.0.0.1:${port}`,
      pid: child.pid!,
      close: async () => {
        process.removeListener('exit', stopOnExit);
        if (!exited) {
          const gone = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await gone;
        }
        rmSync(prefix, { recursive: true, force: true });
      },
    };
  }
}
