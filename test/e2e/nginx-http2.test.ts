/**
 * HTTP/2 end to end through a real HTTP/2 server that is not ours: nginx (Debian's nginx-light,
 * which has the HTTP/2 module) terminates TLS with `http2` on a free port and proxies to the
 * reference server over HTTP/1.1. `rpcload run --http2` negotiates h2 with nginx, sends its load
 * as streams that all reach the reference server, and `verify --http2` passes its checks through
 * it, the `tls` check reporting ALPN h2. The test writes nginx's configuration into a temp dir and
 * starts nginx itself; without nginx it skips (and fails under CI=true, where .ci/run installs it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runRpcload } from '../support/cli.ts';
import { freePort } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { requireProgram } from '../support/system-program.ts';
import { serverCertificate, TempDir, testCa } from '../support/test-certificates.ts';

const nginx = requireProgram('nginx', { package: 'nginx-light' });

function nginxConfig(dir: string, port: number, upstream: string): string {
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  # A GOAWAY every 50 streams (nginx's default is 1,000): a run meets several, with streams in flight.
  keepalive_requests 50;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  upstream reference { server ${upstream}; keepalive 16; }
  server {
    listen 127.0.0.1:${port} ssl http2;
    ssl_certificate ${dir}/server.pem;
    ssl_certificate_key ${dir}/server.key;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / {
      proxy_pass http://reference;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host:$server_port;
    }
  }
}
`;
}

/** Resolves once 127.0.0.1:port accepts connections (deadline `timeoutMs`). */
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
  throw new Error(`nginx did not accept connections on ${port} within ${timeoutMs} ms`);
}

describe.skipIf(nginx.path === null)(`HTTP/2 through nginx in front of the reference server${nginx.skipNote}`, () => {
  let dir: TempDir;
  let reference: ServerHandle;
  let proxy: ChildProcess | undefined;
  let url = '';
  let caFile = '';

  beforeAll(async () => {
    dir = new TempDir();
    const ca = await testCa();
    const certificate = await serverCertificate(ca);
    caFile = dir.write('ca.pem', ca.cert);
    dir.write('server.pem', certificate.cert);
    dir.write('server.key', certificate.key);
    mkdirSync(join(dir.path, 'tmp'));
    // No quota in the way: 8 users reach 1,000 requests per client in 2 s on an idle machine, and a
    // 429 would bring in the passive rate-limit checks of the run's default contract (100 per 10 s).
    reference = await startServer({ limit: 1_000_000 });
    const port = await freePort();
    const config = dir.write('nginx.conf', nginxConfig(dir.path, port, reference.url.replace('http://', '')));
    proxy = spawn(nginx.path!, ['-p', dir.path, '-e', join(dir.path, 'error.log'), '-c', config], { stdio: 'ignore' });
    let exited = false;
    proxy.once('exit', () => (exited = true));
    try {
      await accepting(port, 10_000, () => !exited);
    } catch (err) {
      const log = existsSync(join(dir.path, 'error.log')) ? readFileSync(join(dir.path, 'error.log'), 'utf8') : '';
      throw new Error(`${(err as Error).message}\n${log}`);
    }
    url = `https://127.0.0.1:${port}`;
  }, 30_000);

  afterAll(async () => {
    if (proxy !== undefined && proxy.exitCode === null) {
      const gone = new Promise((resolve) => proxy!.once('exit', resolve));
      proxy.kill('SIGTERM');
      await Promise.race([gone, sleep(5000)]);
      if (proxy.exitCode === null) proxy.kill('SIGKILL');
    }
    await reference?.close();
    dir?.remove();
  });

  it('run --http2: the load goes out as h2 streams and every request reaches the server behind nginx', async () => {
    const out = join(dir.path, 'run.json');
    const before = reference.stats().requests;
    const run = await runRpcload([
      'run',
      '--target',
      url,
      '--ca',
      caFile,
      '--http2',
      '--client',
      'client-1:demo-secret',
      '--client',
      'client-2:demo-secret',
      '--method',
      'ping',
      '--concurrency',
      '8',
      '--duration',
      '2s',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(result.summary.connections?.byProtocol).toEqual({ h2: result.summary.connections?.opened });
    expect(result.summary.outcomes).toEqual({ success: result.summary.requests });
    expect(result.summary.requests).toBeGreaterThan(100); // so nginx ended sessions with GOAWAY mid-run
    // the API calls and the two token requests, all through nginx
    expect(reference.stats().requests - before).toBe(result.summary.requests + 2);
  });

  it('verify --http2 passes through nginx, and the tls check reports ALPN h2', async () => {
    const out = join(dir.path, 'verify.json');
    const run = await runRpcload([
      'verify',
      '--target',
      url,
      '--ca',
      caFile,
      '--http2',
      '--client',
      'client-v1:demo-secret',
      '--method',
      'ping',
      '--only',
      'tls,envelope,auth.missing_token,auth.invalid_token',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const tls = (JSON.parse(readFileSync(out, 'utf8')) as RunResult).checks.find((c) => c.id === 'tls')!;
    expect(tls.verdict).toBe('pass');
    expect(tls.detail).toMatch(/ALPN h2\)/);
  });
});
