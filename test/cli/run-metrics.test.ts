/**
 * `--metrics-*` flags as a user types them: bad values and an address that cannot be listened on
 * are one line on stderr and exit 2, before any load (no result file); a good one serves
 * /metrics during the run and 404 elsewhere.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';
import { freePort, parsePrometheusText } from '../support/prometheus-text.ts';
import { sleep } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-metrics-cli-');
let blocker: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (blocker === undefined ? resolve() : blocker.close(() => resolve())));
  blocker = undefined;
});

/** One line naming the flag, no stack trace (commander adds its usage hint to flag errors, as for every flag). */
function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr
    .trim()
    .split('\n')
    .filter((line) => line !== '(run with --help for usage)');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe('rpcload run --metrics-*', { timeout: 60_000 }, () => {
  it.each([
    [['--metrics-listen', 'nonsense'], /--metrics-listen.*expected HOST:PORT or PORT.*"nonsense"/],
    [['--metrics-listen', '127.0.0.1:70000'], /--metrics-listen.*expected HOST:PORT/],
    [['--metrics-listen', '9464', '--metrics-buckets', '5,1'], /--metrics-buckets.*ascending/],
    [['--metrics-clients', '3'], /--metrics-clients: needs --metrics-listen/],
    [['--metrics-listen', '9464', '--metrics-linger', 'soon'], /--metrics-linger.*duration/],
    [['--metrics-tag', 'kind'], /--metrics-tag: needs --metrics-listen/],
    [
      ['--metrics-listen', '9464', '--metrics-tag', 'kind'],
      /--metrics-tag kind: no step of the profile has this tag \(no step has tags\)/,
    ],
  ])('refuses %j with one line and exit 2', async (flags, message) => {
    const out = join(dir, `bad-${Math.random()}.json`);
    const run = await runRpcload(['run', '--duration', '1s', '--ui', 'none', '--out', out, ...flags]);
    expect(run.code).toBe(2);
    expectOneLine(run.stderr, message);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a port in use before any load: one line, exit 2, no result file', async () => {
    const port = await freePort();
    const server = createServer();
    blocker = server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const out = join(dir, 'in-use.json');
    const run = await runRpcload([
      'run',
      '--duration',
      '1s',
      '--ui',
      'none',
      '--out',
      out,
      '--metrics-listen',
      `127.0.0.1:${port}`,
    ]);
    expect(run.code).toBe(2);
    expectOneLine(
      run.stderr,
      new RegExp(`^rpcload: --metrics-listen 127\\.0\\.0\\.1:${port}: cannot listen \\(the port is in use\\)$`),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('capacity refuses a bad --metrics-listen the same way', async () => {
    const run = await runRpcload(['capacity', '--ui', 'none', '--metrics-listen', 'host:port']);
    expect(run.code).toBe(2);
    expectOneLine(run.stderr, /--metrics-listen.*expected HOST:PORT/);
  });

  it('serves /metrics during the run (a bare port listens on 127.0.0.1), 404 elsewhere, and closes after the linger', async () => {
    const port = await freePort();
    const out = join(dir, 'served.json');
    const run = runRpcload([
      'run',
      '--duration',
      '2s',
      '--ui',
      'none',
      '--out',
      out,
      '--metrics-listen',
      String(port),
      '--metrics-linger',
      '1s',
    ]);
    let text = '';
    let missing = 0;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null);
      if (response !== null) {
        text = await response.text();
        missing = (await fetch(`http://127.0.0.1:${port}/other`)).status;
        if (/^rpcload_requests_total\{/m.test(text)) break;
      }
      await sleep(100);
    }
    expect(missing).toBe(404);
    const scraped = parsePrometheusText(text);
    expect(scraped.types.get('rpcload_requests_total')).toBe('counter');
    expect(scraped.samples.find((s) => s.name === 'rpcload_requests_total')?.labels).toMatchObject({
      profile: 'demo',
      shard: '1/1',
    });
    const done = await run;
    expect([0, 1], done.stderr).toContain(done.code); // 1: a demo threshold failed on a busy machine; the run itself ended
    expect(done.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(true);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});
