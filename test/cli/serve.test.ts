import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { METHOD_HELP } from '../../src/server/methods/method-help.ts';
import { FAULTS } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { RPCLOAD_BIN, runRpcload } from '../support/cli.ts';
import { serveWhile } from '../support/serve-process.ts';
import { call, tokenFor } from '../support/server-helpers.ts';

describe('rpcload serve', () => {
  it('behind a wrapper process (as npx or npm runs it), prints its own pid: kill -USR2 restarts it, kill stops it', async () => {
    // `; exit` keeps the shell as the parent, the way npx stays in front of the CLI: `$!` would be the wrapper's pid.
    const wrapper = spawn(
      'sh',
      ['-c', `"${process.execPath}" "${RPCLOAD_BIN}" serve --port 0 --limit 2 --window 1m; exit $?`],
      {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    wrapper.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => wrapper.on('close', resolve));
    const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await delay(20)) {
        const match = pattern.exec(stderr);
        if (match) return match;
      }
      throw new Error(`never printed ${pattern}: ${stderr}`);
    };
    try {
      const pid = Number((await waitFor(/^rpcload serve: pid (\d+): send signals here/m))[1]);
      expect(pid).not.toBe(wrapper.pid);
      process.kill(pid, 'SIGUSR2');
      await waitFor(/SIGUSR2, restarted/);
      process.kill(pid, 'SIGTERM');
      expect(await Promise.race([exited, delay(10_000).then(() => 'still running')])).toBe(0);
      expect(() => process.kill(pid, 0)).toThrow(); // the server is gone, not left behind
    } finally {
      wrapper.kill('SIGKILL');
    }
  }, 40_000);

  it('prints exactly one URL line on stdout, serves what the flags say, and exits 0 on SIGTERM', async () => {
    const args = [
      '--port',
      '0',
      '--tls',
      '--clients',
      'ci-bot:s3cr3t-value,other:x:y',
      '--limit',
      '2',
      '--window',
      '1m',
      '--fault',
      'limit-plus-one',
      '--fault',
      'auth-403',
    ];
    const result = await serveWhile(args, async (url) => {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const dispatcher = new Agent({ connect: { rejectUnauthorized: false } }); // self-signed, made at start
      try {
        const token = await tokenFor(url, 'ci-bot', 's3cr3t-value', { dispatcher });
        const statuses = [];
        for (let i = 0; i < 4; i++) statuses.push((await call(url, 'ping', token, {}, { dispatcher })).status);
        expect(statuses).toEqual([200, 200, 200, 429]); // limit 2, plus one (the fault)
        expect((await call(url, 'ping', 'bm9wZQ', {}, { dispatcher })).status).toBe(403); // auth-403
      } finally {
        await dispatcher.close();
      }
    });
    expect([result.code, result.signal]).toEqual([0, null]);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('rate limit 2 per 1m00s per client (fixed)');
    expect(result.stderr).toContain('faults: limit-plus-one, auth-403');
    expect(result.stderr).toContain('clients: 2 registered');
    expect(result.stderr + result.stdout).not.toMatch(/s3cr3t-value|x:y/); // no secret in logs
  });

  it.concurrent('--help documents every flag and every fault from the catalogue', async () => {
    const result = await runRpcload(['serve', '--help']);
    expect(result.code).toBe(0);
    const flags = [
      '--port',
      '--host',
      '--limit',
      '--window',
      '--algorithm',
      '--fault',
      '--tls',
      '--cert',
      '--key',
      '--clients',
      '--client-pattern',
      '--token-method',
      '--token-ttl',
      '--token-response',
      '--payload-limit',
      '--items',
      '--page-size',
      '--cursor-ttl',
      '--work-p50',
      '--work-p99',
      '--flaky-rate',
      '--chaos-rate',
      '--added-latency',
      '--seed',
    ];
    for (const flag of flags) expect(result.stdout).toContain(flag);
    for (const { name, summary } of METHOD_HELP) expect(result.stdout).toContain(`  ${name.padEnd(14)}  ${summary}\n`);
    expect(result.stdout).toContain('"client-", "smoke-", "app-", "web-", "ord-", "admin-" or "user-"');
    for (const fault of FAULTS)
      expect(result.stdout).toMatch(
        new RegExp(
          `^\\s+${fault.name}\\s+${fault.description.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
          'm',
        ),
      );
  });

  // Concurrent: each case is a process start, mostly spent loading modules.
  it.concurrent.each([
    [['--fault', 'nope'], /--fault <name>' argument 'nope' is invalid/], // not in the catalogue
    [
      ['--clients', 'ok:s3cret-value,broken'],
      /--clients: expected ID:SECRET\[,ID:SECRET…\] with non-empty IDs and secrets \(the value is not shown/,
    ],
    [['--cert', '/nonexistent.pem', '--key', '/nonexistent.key'], /--cert: cannot read \/nonexistent\.pem/],
    [['--work-p50', '300ms', '--work-p99', '100ms'], /workLatency needs 0 < p50Ms ≤ p99Ms/], // caught by the server's own validation
  ])('bad flags %j → one line, exit 2', async (args, message) => {
    const result = await runRpcload(['serve', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toContain('s3cret-value'); // a bad value may hold a secret: never echoed
    expect(result.stdout).toBe('');
  });

  it.concurrent('a taken port → one line, exit 2', async () => {
    // Not startTestServer: its afterEach would close the blocker when a concurrent test ends.
    const blocker = await startServer();
    try {
      const result = await runRpcload(['serve', '--port', String(blocker.port)]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(`rpcload: cannot listen on 127.0.0.1:${blocker.port}: address already in use`);
    } finally {
      await blocker.close();
    }
  });
});
