/**
 * The deployment checks against a real Redis-backed limiter: rate-limiter-flexible's
 * RateLimiterRedis in two instances of a small API (test/support/redis-limited-api.ts) sharing a
 * real `redis-server`, with and without its insuranceLimiter. The fault and heal hooks stop Redis
 * and start it again, empty, on the same port. The checks report the policy the library really
 * has: without insurance every consume fails with Redis's error while it is down (fail-closed:
 * the application answers 503); with it, each instance counts in its own memory (fail-closed with
 * 429, a count started afresh); either way a restart of Redis hands out a fresh budget.
 * Needs `redis-server` and `redis-cli` (`apt-get install redis-server`): skipped without them,
 * except under CI=true, where their absence fails.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startRedis } from '../support/redis-server.ts';
import { startRedisLimitedApi } from '../support/redis-limited-api.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

const redisServer = requireProgram('redis-server', { package: 'redis-server' });
const redisCli = requireProgram('redis-cli', { package: 'redis-server' });
const dir = useTempDir('rpcload-redis-e2e-');

const CLIENTS = [1, 2, 3].map((n) => ({ id: `app-${n}`, secret: `redis-secret-${n}` }));

describe.skipIf(redisServer.path === null || redisCli.path === null)(
  `RateLimiterRedis in two instances sharing a real Redis${redisServer.skipNote || redisCli.skipNote}`,
  () => {
    it.each([
      // No insurance: while Redis is down every consume rejects with its error.
      [
        false,
        { policy: 'closed', refusedWith: '5xx' },
        /^failed closed with 5xx \(503\): refused all \d+ answered requests while the store was down/,
      ],
      // Insurance: each instance falls back to its own in-memory limiter, the limit shared among them.
      [
        true,
        { policy: 'closed', refusedWith: '429' },
        /^failed closed with 429: admitted \d+ \(5 were left of the budget\), then refused \d+ while the store was down/,
      ],
    ] as const)(
      'insuranceLimiter %s: one quota across instances, the outage policy it really has, a restart resets the budget',
      async (insurance, observed, detail) => {
        const redis = await startRedis();
        const api = await startRedisLimitedApi({
          redisPort: redis.port,
          instances: 2,
          limit: 10,
          windowS: 3,
          insurance,
          clients: CLIENTS,
        });
        try {
          const out = join(dir, `verify-${String(insurance)}.json`);
          const result = await runRpcload(
            [
              'verify',
              '--target',
              api.url,
              ...api.instanceUrls.flatMap((url) => ['--replica', url]),
              ...CLIENTS.flatMap((c) => ['--client', `${c.id}:${c.secret}`]),
              '--method',
              'ping',
              '--limit',
              '10',
              '--window',
              '3s',
              '--only',
              'ratelimit.replicas,ratelimit.store_outage,ratelimit.restart',
              '--fault',
              redis.stopCommand,
              '--heal',
              redis.startCommand,
              '--hook-timeout',
              '10s',
              '--ui',
              'none',
              '--json',
              '--out',
              out,
            ],
            { timeoutMs: 110_000 },
          );
          const checks = (JSON.parse(result.stdout) as { checks: CheckResult[] }).checks;
          const byId = (id: string): CheckResult => checks.find((c) => c.id === id)!;
          expect(byId('ratelimit.replicas').verdict, byId('ratelimit.replicas').detail).toBe('pass');
          const outage = byId('ratelimit.store_outage');
          expect(outage.verdict, outage.detail).toBe('pass');
          expect(outage.detail).toMatch(detail);
          expect(outage.detail).toMatch(/not judged/);
          expect(outage.evidence.observedPolicy).toEqual(observed);
          expect(outage.evidence).toMatchObject({ fault: { exitCode: 0 }, heal: { exitCode: 0 } });
          // Redis is back: the target answers (admitted, or refused by what the limiter remembers).
          expect((outage.evidence.afterHeal as { status: number }).status).toBeGreaterThan(0);
          const restart = byId('ratelimit.restart');
          expect(restart.verdict, restart.detail).toBe('fail');
          expect(restart.detail).toMatch(/^the restart handed out a fresh budget: \d+ admitted after it/);
          expect(result.code).toBe(1);
          expect(result.stdout + result.stderr).not.toContain('redis-secret-');
        } finally {
          await api.close();
          await redis.close();
        }
      },
      120_000,
    );
  },
);
