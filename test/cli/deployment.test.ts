/**
 * The limiter as deployed, through the CLI: `verify --replica` against the reference server's
 * replicas (a shared store passes, per-replica counting fails with the effective limit), the store
 * outage policies switched by a fault file from `--fault`/`--heal` hooks, restarts by SIGUSR2, the
 * per-replica reading of the existing checks, `run --replica`, and the flags' rules. Verify runs
 * in a child process against servers in this one (their event loop is idle meanwhile).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { CheckResult, RunResult } from '../../src/contract/result-schema.ts';
import type { ServerOptions } from '../../src/server/options.ts';
import { runRpcload, type CliResult } from '../support/cli.ts';
import { startServeProcess } from '../support/serve-process.ts';
import { startTestServer } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

// Each test starts the CLI at least once and waits out real windows: more than the default 30 s on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

const dir = useTempDir('rpcload-deployment-');
let files = 0;

const SHORT = ['--limit', '10', '--window', '2s'];
// The store-outage checks hold the load for one window of real time: 1 s is as telling as 2 s. The
// replicas' and the restart's checks keep 2 s (a burst on two replicas, or a restart, must fit in one window).
const ONE_S = ['--limit', '10', '--window', '1s'];
const CLIENTS = ['--client', 'client-1:demo-secret', '--client', 'client-2:demo-secret'];

async function verify(args: readonly string[]): Promise<{ result: CliResult; checks: CheckResult[] }> {
  const result = await runRpcload(
    ['verify', ...args, '--method', 'ping', '--ui', 'none', '--json', '--out', join(dir, `verify-${++files}.json`)],
    {
      timeoutMs: 90_000,
    },
  );
  const checks = result.stdout.startsWith('{') ? (JSON.parse(result.stdout) as { checks: CheckResult[] }).checks : [];
  return { result, checks };
}

const only = (checks: readonly CheckResult[], id: string): CheckResult => checks.find((c) => c.id === id)!;

describe('verify --replica: ratelimit.replicas', () => {
  it.each([
    [
      'shared',
      0,
      'pass',
      /^after replica 1 refused \(10 admitted\), target and replica 2 refused the same client at once/,
    ],
    [
      'memory',
      1,
      'fail',
      /^replica 2 admitted 10 more after replica 1 refused: effective limit 20 per 2 s with 2 replicas/,
    ],
  ] as const)('a %s store: exit %i, %s', async (limiterStore, code, verdict, detail) => {
    const server = await startTestServer({ replicas: 2, limit: 10, windowMs: 2000, limiterStore });
    const replicas = server.replicaUrls.flatMap((url) => ['--replica', url]);
    const { result, checks } = await verify([
      '--target',
      server.url,
      ...replicas,
      ...CLIENTS,
      ...SHORT,
      '--only',
      'ratelimit.replicas',
    ]);
    expect(result.code, result.stderr).toBe(code);
    expect(only(checks, 'ratelimit.replicas')).toMatchObject({ verdict });
    expect(only(checks, 'ratelimit.replicas').detail).toMatch(detail);
  });

  it('at the real contract (100 per 10 s): serve --replicas 2 --limiter-store shared passes', async () => {
    const serve = await startServeProcess(['--replicas', '2', '--limiter-store', 'shared']);
    try {
      const replicas = serve.replicaUrls.flatMap((url) => ['--replica', url]);
      const { result, checks } = await verify([
        '--target',
        serve.url,
        ...replicas,
        ...CLIENTS,
        '--only',
        'ratelimit.replicas',
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(only(checks, 'ratelimit.replicas').detail).toMatch(
        /^after replica 1 refused \(100 admitted\).*and again [\d.]+ s later/,
      );
      expect(only(checks, 'ratelimit.replicas').evidence).toMatchObject({ limit: 100, windowMs: 10_000, replicas: 2 });
    } finally {
      await serve.stop();
    }
  }, 90_000);

  it('without --replica, a per-replica limiter behind the target fails ratelimit.threshold, read as per-replica counting', async () => {
    const server = await startTestServer({ replicas: 2, limit: 10, windowMs: 2000, limiterStore: 'memory' });
    const { checks } = await verify(['--target', server.url, ...CLIENTS, ...SHORT, '--only', 'ratelimit.threshold']);
    const threshold = only(checks, 'ratelimit.threshold');
    expect(threshold.verdict).toBe('fail');
    expect(threshold.detail).toMatch(/20 admitted.*2 × the limit: looks like per-replica counting$/);
    expect(threshold.evidence.perReplicaCounting).toEqual({ admitted: 20, limit: 10, replicas: 2 });
  });
});

describe('verify --fault/--heal: ratelimit.store_outage through a fault file', () => {
  const outageServer = async (storeOutagePolicy: ServerOptions['storeOutagePolicy']) => {
    const file = join(dir, `store-down-${++files}`);
    const server = await startTestServer({
      limit: 10,
      windowMs: 1000,
      storeFaultFile: file,
      storeOutagePolicy,
      clients: CLIENT_SECRETS,
    });
    // The server looks for its fault file every 50 ms: the hook waits for it to have seen it.
    return {
      server,
      hooks: ['--fault', `echo breaking with hook-secret-123; touch ${file} && sleep 0.2`, '--heal', `rm -f ${file}`],
    };
  };
  const CLIENT_SECRETS = [
    { id: 'app-1', secret: 'hook-secret-123' },
    { id: 'app-2', secret: 'hook-secret-456' },
  ];
  const APP_CLIENTS = ['--client', 'app-1:hook-secret-123', '--client', 'app-2:hook-secret-456'];

  it.each([
    [
      'open',
      1,
      'fail',
      /^declared --outage-policy closed, but the limiter failed open: \d+ of \d+ requests .* were admitted while the store was down/,
    ],
    [
      'closed-429',
      0,
      'pass',
      /^as declared \(--outage-policy closed\): the limiter failed closed with 429: refused all \d+ answered requests/,
    ],
    [
      'closed-503',
      0,
      'pass',
      /^as declared \(--outage-policy closed\): the limiter failed closed with 5xx \(503\): refused all \d+/,
    ],
  ] as const)(
    'a store that fails %s, judged against --outage-policy closed: exit %i, %s',
    async (policy, code, verdict, detail) => {
      const { server, hooks } = await outageServer(policy);
      const { result, checks } = await verify([
        '--target',
        server.url,
        ...APP_CLIENTS,
        ...ONE_S,
        ...hooks,
        '--outage-policy',
        'closed',
        '--only',
        'ratelimit.store_outage',
      ]);
      expect(result.code, result.stderr).toBe(code);
      const check = only(checks, 'ratelimit.store_outage');
      expect(check.verdict).toBe(verdict);
      expect(check.detail).toMatch(detail);
      // The hook's output is evidence, with the client secret it echoed redacted.
      expect(JSON.stringify(check.evidence)).toContain('breaking with [redacted]');
      expect(result.stdout + result.stderr).not.toContain('hook-secret-123');
    },
  );

  it('without --outage-policy: the observed policy, not judged', async () => {
    const { server, hooks } = await outageServer('open');
    const { result, checks } = await verify([
      '--target',
      server.url,
      ...APP_CLIENTS,
      ...ONE_S,
      ...hooks,
      '--only',
      'ratelimit.store_outage',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(only(checks, 'ratelimit.store_outage').detail).toMatch(
      /^failed open: .* — not judged: pass --outage-policy open\|closed to judge it$/,
    );
  });

  it('a hook past its deadline ends the check as target_broken, with its output', async () => {
    const server = await startTestServer({ limit: 10, windowMs: 1000 });
    const hooks = ['--fault', 'echo stopping the store; sleep 20', '--heal', 'true', '--hook-timeout', '500ms'];
    const { result, checks } = await verify([
      '--target',
      server.url,
      ...CLIENTS,
      ...ONE_S,
      ...hooks,
      '--only',
      'ratelimit.store_outage',
    ]);
    expect(result.code).toBe(1);
    expect(only(checks, 'ratelimit.store_outage')).toMatchObject({
      verdict: 'skip',
      skipClass: 'target_broken',
      detail: 'the fault hook did not finish within its 0.5 s deadline (--hook-timeout): stopping the store',
    });
  });
});

describe('verify --fault/--heal: ratelimit.restart by SIGUSR2', () => {
  it.each([
    // Both replicas start afresh: the front hands out up to 2 × 10.
    ['memory', 1, /^the restart handed out a fresh budget: (1\d|20) admitted after it/],
    ['shared', 0, /^still refused after the restart: \d+ request\(s\) from/],
  ] as const)(
    'replicas with a %s store: exit %i',
    async (store, code, detail) => {
      const serve = await startServeProcess([
        '--replicas',
        '2',
        '--limiter-store',
        store,
        '--limit',
        '10',
        '--window',
        '2s',
      ]);
      try {
        const hooks = ['--fault', `kill -USR2 ${serve.pid}`, '--heal', 'sleep 0.3'];
        const { result, checks } = await verify([
          '--target',
          serve.url,
          ...CLIENTS,
          ...SHORT,
          ...hooks,
          '--only',
          'ratelimit.restart',
        ]);
        expect(result.code, result.stderr).toBe(code);
        expect(only(checks, 'ratelimit.restart').detail).toMatch(detail);
      } finally {
        await serve.stop();
      }
    },
    60_000,
  );
});

describe('verify: the rules of the deployment flags', () => {
  it.each([
    [['--fault', 'true'], /^rpcload: --fault and --heal go together/],
    [['--outage-policy', 'open'], /^rpcload: --outage-policy: only with --fault CMD --heal CMD\n$/],
    [['--replica', 'ftp://x'], /^rpcload: --replica: expected an http:\/\/ or https:\/\/ URL, found "ftp:\/\/x"/],
  ])('%j → exit 2, one line', async (flags, message) => {
    const server = await startTestServer();
    const { result } = await verify(['--target', server.url, ...CLIENTS, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('never runs the hooks against the embedded server unless asked', async () => {
    const marker = join(dir, 'hook-ran');
    const { checks } = await verify([
      ...ONE_S,
      '--fault',
      `touch ${marker}`,
      '--heal',
      'true',
      '--only',
      'ratelimit.store_outage,ratelimit.restart',
    ]);
    for (const id of ['ratelimit.store_outage', 'ratelimit.restart'])
      expect(only(checks, id)).toMatchObject({
        verdict: 'skip',
        skipClass: 'not_applicable',
        detail: expect.stringContaining('--hooks-on-embedded') as unknown,
      });
    expect(() => rmSync(marker)).toThrow();
  });
});

describe('run --replica', () => {
  it.each([
    ['memory', 'fail'],
    ['shared', 'pass'],
  ] as const)(
    'spreads the load over the replicas of a %s store, counts each, and judges each client across them',
    async (limiterStore, verdict) => {
      const server = await startTestServer({ replicas: 2, limit: 10, windowMs: 2000, limiterStore });
      const profile = join(dir, `replicas-${limiterStore}.json`);
      writeFileSync(
        profile,
        JSON.stringify({
          target: server.url,
          replicas: server.replicaUrls,
          clients: { list: [{ id: 'client-greedy', secret: 'demo-secret' }] },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: '7s', rate: 15 }],
          rateLimit: { limit: 10, window: '2s', on429: 'honour' },
        }),
      );
      const out = join(dir, `run-${limiterStore}.json`);
      const result = await runRpcload(['run', profile, '--ui', 'none', '--out', out], { timeoutMs: 60_000 });
      expect(result.code, result.stderr).not.toBe(2);
      const file = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
      expect(Object.keys(file.byReplica ?? {})).toEqual(server.replicaUrls);
      for (const stats of Object.values(file.byReplica!)) {
        expect(stats.requests).toBeGreaterThan(10);
        expect(stats.latencyMs.p50).toBeGreaterThan(0);
      }
      const threshold = file.checks.find((c) => c.id === 'ratelimit.threshold')!;
      expect(threshold.verdict, threshold.detail).toBe(verdict);
      if (verdict === 'fail')
        expect(threshold.evidence.perReplicaCounting).toEqual({ admitted: 20, limit: 10, replicas: 2 });
    },
  );
});
