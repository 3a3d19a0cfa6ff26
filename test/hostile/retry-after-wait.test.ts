/**
 * An absurd Retry-After (999999999 s, a date in year 9999) is a finding, never an instruction to
 * wait for decades: no 1 ms overflow timer, no warning repeated thousands of times, and a verify
 * check that would wait a (plausible) day ends at its deadline.
 */

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { resolveVerifyConfig } from '../../src/verify/config.ts';
import { runVerify } from '../../src/verify/runner.ts';
import { runRpcload } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { apiRequests, refuseWithRetryAfter, startHostileApi } from '../support/stalling-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

let server: TestServer | undefined;
const dir = useTempDir('rpcload-retry-after-');
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];
const ABSURD = [
  ['999999999 s', '999999999'],
  ['a date in year 9999', 'Fri, 31 Dec 9999 23:59:59 GMT'],
] as const;

describe('run: an absurd Retry-After', () => {
  it.each(ABSURD)('%s: one warning, clients back off one window and carry on', async (_name, retryAfter) => {
    server = await startHostileApi(refuseWithRetryAfter(retryAfter));
    const plan = testPlan(
      {
        scenarios: ping,
        phases: [{ duration: '2500ms', rate: 20 }],
        rateLimit: { window: '1s' },
        http: { preconnect: false },
      },
      server.url,
    );
    const overflow: string[] = [];
    const listener = (warning: Error): void => void overflow.push(warning.name);
    process.on('warning', listener);
    const { outcome, result } = await runPlan(plan, server.url).finally(() => process.off('warning', listener));
    expect(outcome.status).toBe('completed');
    expect(overflow).not.toContain('TimeoutOverflowWarning');
    expect(result.warnings.filter((w) => w.includes('Retry-After'))).toEqual([
      expect.stringMatching(
        /^the server sent an unusable Retry-After .*: clients backed off one rate-limit window instead$/,
      ),
    ]);
    // Two clients, refused at once, back again after 1 s each: more than one request per client.
    expect(apiRequests(server)).toBeGreaterThan(2);
  });
});

describe('verify: an absurd Retry-After', () => {
  it.each(ABSURD.slice(0, 1))(
    '%s: a finding in ratelimit.response, never waited for (CLI)',
    async (_name, retryAfter) => {
      server = await startHostileApi(refuseWithRetryAfter(retryAfter));
      const out = join(dir, 'verify.json');
      const started = performance.now();
      const cli = await runRpcload(
        [
          'verify',
          '--target',
          server.url,
          '--client',
          'a:s3cret',
          '--client',
          'b:s3cret',
          '--method',
          'ping',
          '--limit',
          '3',
          '--window',
          '1s',
          '--only',
          'ratelimit.response,ratelimit.retry_after_honoured',
          '--ui',
          'plain',
          '--out',
          out,
        ],
        { timeoutMs: 25_000 },
      );
      expect(cli.code).toBe(1);
      expect(cli.stderr).not.toMatch(/TimeoutOverflowWarning/);
      expect(cli.stderr.split('\n').length).toBeLessThan(30); // once 240,000 warning lines
      expect(performance.now() - started).toBeLessThan(20_000);
      const checks = (await readResultFile(out)).checks;
      expect(checks.find((c) => c.id === 'ratelimit.response')).toMatchObject({
        verdict: 'fail',
        detail: expect.stringMatching(/asks for a wait of over a day \(not followed\)/) as unknown,
      });
      expect(checks.find((c) => c.id === 'ratelimit.retry_after_honoured')?.verdict).not.toBe('pass');
    },
    30_000,
  );

  it.each(ABSURD)(
    '%s: no overflowing timer, no waiting, a finding (in process)',
    async (_name, retryAfter) => {
      server = await startHostileApi(refuseWithRetryAfter(retryAfter));
      const config = resolveVerifyConfig(
        {
          client: ['a:s3cret', 'b:s3cret'],
          method: ['ping'],
          limit: 3,
          window: 1000,
          only: 'ratelimit.response,ratelimit.retry_after_honoured',
        },
        null,
        server.url,
        null,
      );
      const overflow: string[] = [];
      const listener = (warning: Error): void => void overflow.push(warning.name);
      process.on('warning', listener);
      const started = performance.now();
      const report = await runVerify(config).finally(() => process.off('warning', listener));
      expect(performance.now() - started).toBeLessThan(8000);
      expect(overflow).not.toContain('TimeoutOverflowWarning');
      expect(report.checks.find((c) => c.id === 'ratelimit.response')?.detail).toMatch(
        /asks for a wait of over a day \(not followed\)/,
      );
    },
    20_000,
  );

  it('a check that would wait out a Retry-After of a day ends at its deadline', async () => {
    server = await startHostileApi(refuseWithRetryAfter('86400'));
    const config = resolveVerifyConfig(
      { client: ['a:s3cret'], method: ['ping'], limit: 3, window: 1000, only: 'ratelimit.retry_after_honoured' },
      null,
      server.url,
      null,
    );
    const started = performance.now();
    const report = await runVerify(config, { checkDeadlineMs: 1500 });
    expect(performance.now() - started).toBeLessThan(8000);
    expect(report.checks).toEqual([
      expect.objectContaining({
        id: 'ratelimit.retry_after_honoured',
        verdict: 'skip',
        detail: 'not judged: the check did not finish within its 1.5s deadline',
      }),
    ]);
  }, 20_000);
});
