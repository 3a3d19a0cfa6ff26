/**
 * No signal is ever dropped, and a hang-up is an interruption. SIGHUP (a closed terminal, a dropped
 * SSH session) stops a run like SIGTERM: aborted result file, exit 130 — also when the terminal is
 * really gone. A signal that arrives while the CLI is still loading is never lost in the hand-over
 * from the launcher's early handler to the CLI's own, and signals swept over the first second of a
 * run each end it at once. `merge --wait` ended by a signal is an interruption (130), not a
 * shard set found incomplete (2).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { RPCLOAD_BIN, runRpcload } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { apiRequests, neverAnswer, startHostileApi, until } from '../support/stalling-api.ts';
import { requireProgram } from '../support/system-program.ts';
import { shellQuote, TmuxSession } from '../support/tmux.ts';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rpcload-signals-'));
  // Answers token requests, never an API call: a run only ends early when a signal ends it.
  server = await startHostileApi(neverAnswer);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const loadArgs = (out: string): string[] => [
  'run',
  '--target',
  server.url,
  '--client',
  'a:s3cret',
  '--client',
  'b:s3cret',
  '--method',
  'ping',
  '--rate',
  '5',
  '--duration',
  '30s',
  '--out',
  out,
];

describe('SIGHUP is an interruption, like SIGTERM', () => {
  it('a run hung up mid-load writes its aborted result and exits 130', async () => {
    const out = join(dir, 'hup.json');
    let child: ChildProcess | undefined;
    const exited = runRpcload([...loadArgs(out), '--ui', 'none'], { timeoutMs: 60_000, onSpawn: (c) => (child = c) });
    const before = apiRequests(server);
    await until(() => apiRequests(server) >= before + 3, 15_000);
    const signalledAt = performance.now();
    child!.kill('SIGHUP');
    const cli = await exited;
    expect(cli.code, cli.stderr).toBe(130);
    expect(performance.now() - signalledAt).toBeLessThan(3500);
    const result = await readResultFile(out);
    expect(result.run.status).toBe('aborted');
    expect(result.summary.outcomes['transport:unanswered']).toBeGreaterThanOrEqual(3);
  }, 90_000);

  const tmux = requireProgram('tmux', { package: 'tmux' });
  let session: TmuxSession | null = null;
  afterEach(() => {
    session?.kill();
    session = null;
  });

  it.skipIf(tmux.path === null)(
    `the terminal of a dashboard run is closed: the result is still written, aborted${tmux.skipNote}`,
    async () => {
      const out = join(dir, 'hup-tui.json');
      const args = loadArgs(out).map(shellQuote).join(' ');
      session = TmuxSession.start({
        width: 100,
        height: 30,
        command: `node ${shellQuote(RPCLOAD_BIN)} ${args} --ui tui`,
        cwd: dir,
        env: { CI: undefined, NO_COLOR: undefined },
      });
      await session.waitFor('the dashboard', (screen) => screen.includes('? help'));
      session.kill(); // the pseudo-terminal goes away: SIGHUP, and every later write to it fails
      let result: RunResult | null = null;
      await until(() => {
        if (!existsSync(out)) return false;
        result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
        return result.run.status !== 'running';
      }, 10_000);
      expect(result!.run.status).toBe('aborted');
    },
    90_000,
  );
});

/** The built signal module, as the CLI loads it. */
const SIGNALS_MODULE = fileURLToPath(new URL('../../dist/cli/signals.js', import.meta.url));

describe('a signal is never dropped', () => {
  it('one delivered while the event loop is busy, before the CLI takes the signals over from the launcher, still exits 130', async () => {
    // The launcher's early handler, then a synchronous stretch (as when the CLI's modules are
    // evaluated) during which the signal arrives, then the hand-over.
    const script = `
      const { installSignalHandlers } = await import(${JSON.stringify(SIGNALS_MODULE)});
      process.on('SIGINT', () => process.exit(130));
      process.stdout.write('busy\\n');
      const until = Date.now() + 800;
      while (Date.now() < until);
      installSignalHandlers();
      setTimeout(() => process.exit(0), 3000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGINT'), 200));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(130);
  }, 15_000);

  it('signals swept over the first second of a run (one thread, and two workers) each end it at once', async () => {
    const outcomes: string[] = [];
    for (let atMs = 0; atMs <= 1000; atMs += 40) {
      const out = join(dir, `sweep-${atMs}.json`);
      let child: ChildProcess | undefined;
      const workers = String(1 + ((atMs / 40) % 2));
      const exited = runRpcload([...loadArgs(out), '--workers', workers, '--ui', 'none'], {
        timeoutMs: 30_000,
        onSpawn: (c) => {
          child = c;
          setTimeout(() => c.kill('SIGINT'), atMs);
        },
      });
      const signalledAt = performance.now() + atMs;
      const cli = await exited;
      const stopMs = performance.now() - signalledAt;
      // Before Node has installed any handler, the default action ends the process (killed by SIGINT);
      // from then on the CLI exits 130, with an aborted result file once the run has begun.
      const ended = cli.signal === 'SIGINT' || cli.code === 130;
      const status = existsSync(out) ? (JSON.parse(await readFile(out, 'utf8')) as RunResult).run.status : 'none';
      if (!ended || stopMs > 10_000 || status === 'completed' || status === 'running')
        outcomes.push(
          `at ${atMs} ms, ${workers} worker(s): exit ${cli.code ?? cli.signal} after ${Math.round(stopMs)} ms, result ${status}`,
        );
      expect(child).toBeDefined();
    }
    expect(outcomes).toEqual([]);
  }, 400_000);
});

describe('merge --wait', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'ended by %s while waiting for shards: exit 130, "interrupted while waiting"',
    async (signal) => {
      const shards = await mkdtemp(join(dir, 'shards-'));
      const first = makeResult({ seed: 7, rps: 10, durationS: 5 });
      const shard = {
        runId: 'run-1',
        index: 1,
        count: 3,
        clients: Object.keys(first.byClient).length,
        startAt: null,
        startLateMs: null,
      };
      await writeFile(join(shards, 'shard-1.json'), JSON.stringify({ ...first, run: { ...first.run, shard } }));
      let child: ChildProcess | undefined;
      const exited = runRpcload(['merge', shards, '--out', join(dir, `merged-${signal}.json`), '--wait', '10m'], {
        timeoutMs: 60_000,
        onSpawn: (c) => {
          child = c;
          c.stderr!.once('data', () => c.kill(signal)); // its first line: waiting for shards
        },
      });
      const cli = await exited;
      expect(child).toBeDefined();
      expect(cli.code, cli.stderr).toBe(130);
      expect(cli.stderr).toMatch(
        /^rpcload: merge: interrupted while waiting for shards \(1 of 3 shards present; missing 2, 3\)$/m,
      );
      expect(cli.stderr).not.toMatch(/shard.*missing.*--partial|\n\s+at /);
    },
    90_000,
  );
});
