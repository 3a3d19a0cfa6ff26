/** `rpcload run` from flags alone — no profile file — against reference servers, plain and TLS. */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-run-inline-');
const SECRET = 'inline-secret:with-colon';
let server: ServerHandle;
let tlsServer: ServerHandle;
beforeAll(async () => {
  const options = { clientPattern: { prefix: 'app-', secret: SECRET }, limit: 10_000 };
  [server, tlsServer] = await Promise.all([startServer(options), startServer({ ...options, tls: true })]);
});
afterAll(() => Promise.all([server.close(), tlsServer.close()]));

function readResult(path: string): RunResult {
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateRunResult(value)).toEqual([]);
  return value as RunResult;
}

describe('rpcload run without a profile', () => {
  it('sends the weighted --method mix from --client IDs, -n requests at --rate, with --threshold judged', async () => {
    const out = join(dir, 'mix.json');
    const run = await runRpcload([
      'run',
      '--target',
      server.url,
      '--client',
      `app-1:${SECRET}`,
      '--client',
      `app-2:${SECRET}`,
      '--method',
      'ping@3',
      '--method',
      'echo:{"from":"{{client.id}}"}',
      '--paginated',
      'items.list',
      '--rate',
      '40',
      '-n',
      '40',
      '--threshold',
      'error_rate == 0',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = readResult(out);
    expect(result.run).toMatchObject({ status: 'completed', profile: '127.0.0.1', embeddedTarget: false });
    // 40 iterations; an items.list iteration walks up to 10 pages
    expect(result.summary.requests).toBeGreaterThanOrEqual(40);
    expect(result.byMethod.ping!.requests).toBeGreaterThan(result.byMethod.echo!.requests);
    expect(Object.keys(result.byClient).sort()).toEqual(['app-1', 'app-2']);
    expect(result.thresholds).toEqual([{ expr: 'error_rate == 0', actual: 0, ok: true }]);
    expect(run.stdout).not.toContain(SECRET);
    expect(readFileSync(out, 'utf8')).not.toContain(SECRET);
  });

  it('takes a pattern with --clients N and the secret from --secret-env; -n counts requests exactly', async () => {
    const out = join(dir, 'pattern.json');
    const run = await runRpcload(
      [
        'run',
        '--target',
        server.url,
        '--client-pattern',
        'app-',
        '--secret-env',
        'API_SECRET',
        '--clients',
        '3',
        '--method',
        'ping',
        '--rate',
        '30',
        '-n',
        '24',
        '--ui',
        'none',
        '--out',
        out,
      ],
      { env: { API_SECRET: SECRET } },
    );
    expect(run.code).toBe(0);
    const result = readResult(out);
    expect(result.summary.requests).toBe(24);
    expect(Object.keys(result.byClient).sort()).toEqual(['app-1', 'app-2', 'app-3']);
  });

  it('reaches a TLS target with --ca, and says what to pass without it', async () => {
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, tlsServer.certPem!);
    const args = [
      'run',
      '--target',
      tlsServer.url,
      '--client',
      `app-1:${SECRET}`,
      '--method',
      'ping',
      '--rate',
      '10',
      '--duration',
      '1s',
      '--ui',
      'none',
    ];
    const trusted = await runRpcload([...args, '--ca', ca, '--out', join(dir, 'tls.json')]);
    expect(trusted.code).toBe(0);
    expect(readResult(join(dir, 'tls.json')).summary.outcomes).toEqual({ success: 10 });
    const untrusted = await runRpcload([...args, '--out', join(dir, 'untrusted.json')]);
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toMatch(
      /^rpcload: no client could obtain a token from https:.*: client app-1: token request failed: transport:\w+ \(the server certificate is not trusted: pass --ca FILE or --insecure/m,
    );
  });

  it.each([
    [['--target', 'http://127.0.0.1:9'], /^rpcload: no method to call: pass --method NAME/],
    [['--target', 'http://127.0.0.1:9', '--method', 'ping'], /^rpcload: no client to send as: pass --client ID:SECRET/],
    [
      ['profiles/smoke.json', '--method', 'ping'],
      /^rpcload: --method: builds a profile from flags; it cannot be combined with a profile file/,
    ],
    [
      ['--method', 'ping', '--rate', 'fast'],
      /--rate <n>' argument 'fast' is invalid\. expected a positive rate like 50, or FROM:TO/,
    ],
    [['--method', 'ping', '--stages', '30s:50,2m'], /--stages <list>' argument '30s:50,2m' is invalid/],
    // the flags' numbers are checked with the profile's phases, by the same rules
    [['--method', 'ping', '--rate', '0'], /^rpcload: --rate: expected a rate above 0 at some point/m],
    [
      ['--method', 'ping', '--concurrency', '1.5'],
      /^rpcload: --concurrency: expected a positive whole number of virtual users, found 1\.5$/m,
    ],
    [
      ['--method', 'ping', '--ca', join(tmpdir(), 'no-such-ca.pem')],
      /--ca <file>' argument .* is invalid\. expected a readable PEM certificate file, found ".*no-such-ca.pem": no such file/,
    ],
    [['--client', 'only-a-secret', '--method', 'ping'], /^rpcload: --client: expected ID:SECRET, found no colon/],
    [
      ['--method', 'ping', '--http-client', 'curl'],
      /--http-client <name>' argument 'curl' is invalid\. expected one of rpcload, undici \(or fast, .*\), found "curl"/,
    ],
  ])('bad flags: one line, exit 2 (%#)', async (args, message) => {
    const run = await runRpcload(['run', ...args, '--ui', 'none', '--out', join(dir, 'never.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('only-a-secret');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('runs on the embedded server with its demo methods when there is no target', async () => {
    const out = join(dir, 'embedded.json');
    const run = await runRpcload([
      'run',
      '--method',
      'ping',
      '--method',
      'work:{"delayMs":1}',
      '--rate',
      '20:40',
      '--duration',
      '1s',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code).toBe(0);
    const result = readResult(out);
    expect(result.run).toMatchObject({ embeddedTarget: true, profile: 'inline' });
    expect(result.summary.requests).toBe(30); // (20 + 40) / 2 per second over 1 s
  });
});
