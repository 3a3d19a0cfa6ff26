/**
 * HTTP/2 end to end through the CLI against the reference server served with node:http2: `run`
 * (open and closed model), `verify` and `capacity` negotiate h2 by ALPN and say so in the result
 * file and the summary; the closed model's virtual users each own a stream of one connection, not
 * a connection each; HTTP/2 required of a target that does not offer it is one line, exit 2.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import { runRpcload } from '../support/cli.ts';
import { TempDir } from '../support/test-certificates.ts';

let dir: TempDir;
let h2: ServerHandle;
let h1: ServerHandle;
let ca: string;
let h1Ca: string;
beforeAll(async () => {
  dir = new TempDir();
  // No test here is about the rate limit: a closed run of 8 users sends over 1,000 calls a second on h2.
  [h2, h1] = await Promise.all([startServer({ tls: true, http2: true, limit: 1_000_000 }), startServer({ tls: true })]);
  ca = dir.write('h2-ca.pem', h2.certPem!);
  h1Ca = dir.write('h1-ca.pem', h1.certPem!);
});
afterAll(async () => {
  await Promise.all([h2.close(), h1.close()]);
  dir.remove();
});

const result = (path: string): RunResult => JSON.parse(readFileSync(path, 'utf8')) as RunResult;
const load = (target: string, trust: string): string[] => [
  'run',
  '--target',
  target,
  '--ca',
  trust,
  '--client',
  'client-1:demo-secret',
  '--method',
  'ping',
  '--ui',
  'none',
];

describe('HTTP/2 through the CLI', () => {
  it('run --http2, closed model: eight virtual users share one h2 connection, a stream each', async () => {
    const out = `${dir.path}/closed.json`;
    const requestsBefore = h2.stats().requests;
    const run = await runRpcload([
      ...load(h2.url, ca),
      '--http2',
      '--concurrency',
      '8',
      '--duration',
      '1s',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(validateRunResult(r)).toEqual([]);
    expect(r.summary.connections).toEqual({ opened: 1, byProtocol: { h2: 1 } });
    expect(r.summary.outcomes).toEqual({ success: r.summary.requests });
    // every request reached the server (plus the token request)
    expect(h2.stats().requests - requestsBefore).toBe(r.summary.requests + 1);
    expect(r.config.http).toMatchObject({ version: '2', maxConcurrentStreams: 100 });
    expect(run.stdout).toMatch(/^connections\s+1 \(h2 1\)$/m);
  });

  it('run --http2, open model: arrivals are streams, latency from the intended start', async () => {
    const out = `${dir.path}/open.json`;
    const run = await runRpcload([...load(h2.url, ca), '--http2', '--rate', '40', '--duration', '1s', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(r.summary.connections?.byProtocol).toEqual({ h2: r.summary.connections?.opened });
    expect(r.summary.requests).toBeGreaterThanOrEqual(35);
    expect(r.summary.scheduleLagMs).not.toBeNull();
  });

  it('http.version auto takes h2 where offered and HTTP/1.1 where not', async () => {
    for (const [server, trust, protocol] of [
      [h2, ca, 'h2'],
      [h1, h1Ca, 'http/1.1'],
    ] as const) {
      const out = `${dir.path}/auto-${protocol.replace('/', '')}.json`;
      const profile = dir.write(
        `auto-${protocol.replace('/', '')}.profile.json`,
        JSON.stringify({
          target: server.url,
          clients: { list: [{ id: 'client-1', secret: 'demo-secret' }] },
          http: { version: 'auto', ca: trust },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: '1s', rate: 10 }],
        }),
      );
      const run = await runRpcload(['run', profile, '--ui', 'none', '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      expect(Object.keys(result(out).summary.connections!.byProtocol)).toEqual([protocol]);
    }
  });

  it('run --http2 against a target without h2 is one line, exit 2, before any load', async () => {
    const requestsBefore = h1.stats().requests;
    const run = await runRpcload([
      ...load(h1.url, h1Ca),
      '--http2',
      '--rate',
      '5',
      '--duration',
      '1s',
      '--out',
      `${dir.path}/refused.json`,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `rpcload: ${h1.url} does not speak HTTP/2: ALPN negotiated http/1.1 (http.version "2" / --http2 requires h2; "auto" takes what the server offers)`,
    ]);
    expect(h1.stats().requests).toBe(requestsBefore);
  });

  it('run --http2 with an http:// target is refused with the flag named', async () => {
    const run = await runRpcload([
      'run',
      '--target',
      'http://127.0.0.1:9',
      '--client',
      'a:b',
      '--method',
      'ping',
      '--http2',
      '--ui',
      'none',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--http2: expected an https:\/\/ target for HTTP\/2 \(it is negotiated with TLS ALPN\)/);
  });

  it('the embedded server serves HTTP/2 with server.tls and server.http2', async () => {
    const out = `${dir.path}/embedded.json`;
    const profile = dir.write(
      'embedded.profile.json',
      JSON.stringify({
        server: { tls: true, http2: true },
        http: { version: '2' },
        clients: { count: 2 },
        scenarios: [{ steps: [{ method: 'ping' }] }],
        phases: [{ duration: '1s', rate: 10 }],
      }),
    );
    const run = await runRpcload(['run', profile, '--ui', 'none', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(result(out).summary.connections?.byProtocol).toEqual({ h2: 1 });
  });

  it('verify --http2: the checks pass over h2, and the tls check reports ALPN h2', async () => {
    const out = `${dir.path}/verify.json`;
    const run = await runRpcload(
      [
        'verify',
        '--target',
        h2.url,
        '--ca',
        ca,
        '--http2',
        '--client-pattern',
        'client-v:demo-secret',
        '--method',
        'ping',
        '--method',
        'echo',
        '--only',
        'tls,envelope,auth.missing_token,auth.invalid_token,payload.limit',
        '--ui',
        'none',
        '--out',
        out,
      ],
      { timeoutMs: 120_000 },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const checks = result(out).checks;
    expect(checks.map((c) => [c.id, c.verdict])).toEqual([
      ['envelope', 'pass'],
      ['auth.missing_token', 'pass'],
      ['auth.invalid_token', 'pass'],
      ['payload.limit', 'pass'],
      ['tls', 'pass'],
    ]);
    expect(checks.find((c) => c.id === 'tls')!.detail).toMatch(/ALPN h2\)/);
  }, 150_000);

  it('capacity --http2 searches over h2', async () => {
    const out = `${dir.path}/capacity.json`;
    const profile = dir.write(
      'capacity.profile.json',
      JSON.stringify({
        target: h2.url,
        http: { ca },
        clients: { pattern: 'client-c{n}', count: 4, secret: 'demo-secret' },
        scenarios: [{ steps: [{ method: 'ping' }] }],
        phases: [{ duration: '1s', rate: 1 }],
        thresholds: ['p99 < 2s'],
        capacity: { start: 20, warmUp: '0s', hold: '1s', confirm: '0s', max: 40, maxLag: '1s' },
      }),
    );
    const run = await runRpcload(['capacity', profile, '--http2', '--ui', 'none', '--out', out], {
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(r.config.http).toMatchObject({ version: '2' });
    expect(r.summary.connections?.byProtocol).toEqual({ h2: r.summary.connections?.opened });
  }, 150_000);
});
