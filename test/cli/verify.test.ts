import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { CHECK_IDS } from '../../src/verify/check-ids.ts';
import { runRpcload } from '../support/cli.ts';
import { demoClients } from '../support/verify-reference.ts';
import { testcases, xmlProblems } from '../support/xml.ts';
import { useTempDir } from '../support/temp-dir.ts';

interface VerifyJson {
  readonly durationMs: number;
  readonly failed: number;
  readonly checks: readonly { id: string; verdict: string; detail: string; evidence: Record<string, unknown> }[];
}

const clientFlags = (count: number, group: string): string[] =>
  demoClients(count, group).flatMap((c) => ['--client', c]);

describe.concurrent('rpcload verify (CLI)', () => {
  let contract: ServerHandle;
  let short: ServerHandle;
  let noChallenge: ServerHandle;
  const dir = useTempDir('rpcload-verify-cli-');
  beforeAll(async () => {
    // The real contract (100 per 10 s); a short one; one breaking RFC 6750 for missing tokens.
    [contract, short, noChallenge] = await Promise.all([
      startServer({}),
      startServer({ limit: 10, windowMs: 1000 }),
      startServer({ limit: 10, windowMs: 1000, faults: ['auth-no-challenge'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([contract.close(), short.close(), noChallenge.close()]);
  });

  it(
    'verifies a conformant server at 100 per 10 s with 6 clients in about two windows',
    { timeout: 60_000 },
    async () => {
      const out = join(dir, 'contract.json');
      const junit = join(dir, 'contract.xml');
      const startedMs = performance.now();
      const result = await runRpcload(
        [
          'verify',
          '--target',
          contract.url,
          ...clientFlags(6, 'e2e-'),
          '--method',
          'ping',
          '--method',
          'echo',
          '--paginated',
          'items.list',
          '--json',
          '--out',
          out,
          '--junit',
          junit,
        ],
        { timeoutMs: 55_000 },
      );
      const wallMs = performance.now() - startedMs;
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as VerifyJson;
      expect(report.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
      expect(report.checks.filter((c) => c.verdict === 'fail')).toEqual([]);
      // tls on plain http, and the deployment checks without --replica or --fault/--heal.
      expect(report.checks.filter((c) => c.verdict === 'skip').map((c) => c.id)).toEqual([
        'ratelimit.replicas',
        'ratelimit.store_outage',
        'ratelimit.restart',
        'tls',
      ]);
      // About two windows: ≈ 21 s of checks measured (plus process start); generous for a loaded CI machine.
      expect(report.durationMs).toBeLessThan(30_000);
      expect(wallMs).toBeLessThan(50_000);
      // Live progress went to stderr.
      expect(result.stderr).toMatch(/^\[ *\d+\.\ds\] ratelimit\.threshold ▸ RUN {2}on client-e2e-\d$/m);
      expect(result.stderr).toMatch(/^\[ *\d+\.\ds\] ratelimit\.threshold ✓ PASS {2}exactly 100 admitted/m);

      const file = JSON.parse(await readFile(out, 'utf8')) as RunResult;
      expect(validateRunResult(file)).toEqual([]);
      expect(file.run).toMatchObject({
        kind: 'verify',
        model: 'none',
        status: 'completed',
        profile: 'verify',
        target: contract.url,
        embeddedTarget: false,
      });
      expect(file.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
      // No secret anywhere in what was written.
      expect(JSON.stringify(file)).not.toContain('demo-secret');

      const xml = await readFile(junit, 'utf8');
      expect(xmlProblems(xml)).toEqual([]);
      expect([...testcases(xml).keys()]).toEqual([...CHECK_IDS]);
      expect(xml).toMatch(/<testsuites [^>]*tests="15" failures="0" errors="0" skipped="4"/);
      expect(testcases(xml).get('tls')).toContain(
        '<skipped message="plain http target: TLS applies to https targets only"/>',
      );
    },
  );

  it('prints the table, exits 1 when a check fails, writes the failure to JUnit', async () => {
    const junit = join(dir, 'fail.xml');
    const out = join(dir, 'fail.json');
    const result = await runRpcload([
      'verify',
      '--target',
      noChallenge.url,
      ...clientFlags(2, 'fail-'),
      '--method',
      'ping',
      '--limit',
      '10',
      '--window',
      '1s',
      '--only',
      'auth.missing_token,auth.invalid_token',
      '--out',
      out,
      '--junit',
      junit,
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(
      /^ {2}✗ FAIL {2}auth\.missing_token {14}a request without Authorization got 401 but no WWW-Authenticate header/m,
    );
    expect(result.stdout).toMatch(/^ {2}✓ PASS {2}auth\.invalid_token /m);
    expect(result.stdout).toContain('1 passed · 1 failed · 0 skipped');
    // --only: nothing else ran.
    expect(result.stdout).not.toMatch(/ratelimit|envelope|pagination/);
    const xml = await readFile(junit, 'utf8');
    expect(xmlProblems(xml)).toEqual([]);
    expect(testcases(xml).get('auth.missing_token')).toMatch(
      /<failure message="a request without Authorization got 401 but no WWW-Authenticate header[^"]*" type="fail">[\s\S]*evidence:[\s\S]*&quot;status&quot;: 401/,
    );
    expect((JSON.parse(await readFile(out, 'utf8')) as RunResult).checks.map((c) => c.verdict)).toEqual([
      'fail',
      'pass',
    ]);
  });

  it.each([
    // a bad number
    [['--limit', 'ten'], /option '--limit <n>' argument 'ten' is invalid/],
    // an unknown check id
    [['--only', 'envelope,nope'], /--only: unknown check id\(s\) "nope"/],
    // a client without its secret (which must not be echoed)
    [['--client', 'client-1'], /--client: expected ID:SECRET, found no colon/],
  ])('bad input %j → exit 2 with one line', async (flags, message) => {
    const result = await runRpcload(['verify', '--target', short.url, ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });

  it('an unreachable target → exit 2 at the start', async () => {
    const result = await runRpcload([
      'verify',
      '--target',
      'http://127.0.0.1:9',
      '--client',
      'client-1:demo-secret',
      '--method',
      'ping',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('rpcload: cannot reach http://127.0.0.1:9: ECONNREFUSED');
  });

  it('a wrong secret → exit 2 naming the client, never the secret', async () => {
    const result = await runRpcload([
      'verify',
      '--target',
      short.url,
      '--client',
      'client-1:wrong-secret-value',
      '--method',
      'ping',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^rpcload: client client-1: token request refused \(HTTP 401\): invalid_client.* — check the client ID and secret, and --client-auth$/,
    );
    expect(result.stderr).not.toContain('wrong-secret-value');
  });

  it('SIGINT stops the run, writes the result file as aborted, exit 130', async () => {
    const out = join(dir, 'aborted.json');
    const result = await runRpcload(
      ['verify', '--target', contract.url, ...clientFlags(6, 'sigint-'), '--method', 'ping', '--out', out],
      {
        onSpawn: (child) => {
          child.stderr?.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes('ratelimit.threshold ▸ RUN')) setTimeout(() => child.kill('SIGINT'), 500);
          });
        },
      },
    );
    expect(result.code, result.stderr).toBe(130);
    const file = JSON.parse(await readFile(out, 'utf8')) as RunResult;
    expect(validateRunResult(file)).toEqual([]);
    expect(file.run.status).toBe('aborted');
    expect(file.checks.find((c) => c.id === 'ratelimit.threshold')).toMatchObject({
      verdict: 'skip',
      detail: 'interrupted',
    });
  });

  it('without a profile or target, verifies the demo profile against the embedded reference server', async () => {
    const out = join(dir, 'demo.json');
    const result = await runRpcload([
      'verify',
      '--only',
      'auth.missing_token,envelope,pagination',
      '--out',
      out,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as VerifyJson).checks.map((c) => [c.id, c.verdict])).toEqual([
      ['envelope', 'pass'],
      ['auth.missing_token', 'pass'],
      ['pagination', 'pass'],
    ]);
    const file = JSON.parse(await readFile(out, 'utf8')) as RunResult;
    expect(file.run).toMatchObject({ profile: 'demo', embeddedTarget: true });
  });
});
