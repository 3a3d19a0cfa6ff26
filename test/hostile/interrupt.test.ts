/**
 * One Ctrl-C (or SIGTERM) stops every stage within about 2 s, against a server that never
 * answers: token fetching, the load, the drain after it, and verify's start-up probe. The real
 * CLI is spawned and signalled; each stop exits 130 and still writes a valid result file.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload, type CliResult } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import {
  answerSuccess,
  apiRequests,
  neverAnswer,
  startHostileApi,
  tokenRequests,
  until,
} from '../support/stalling-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** Time from the signal to the exit: "about 2 s", with room for a loaded machine. */
const STOP_BUDGET_MS = 3500;
/** Time from the signal to the exit while a data set is read before the run: nothing has started, so "at once". */
const DATA_SCAN_STOP_BUDGET_MS = 2000;

let server: TestServer | undefined;
const dir = useTempDir('rpcload-interrupt-');
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function profileFile(name: string, phases: unknown[]): Promise<string> {
  const path = join(dir, `${name}-profile.json`); // not the name of a result file: an output is never its own profile
  await writeFile(
    path,
    JSON.stringify({
      clients: { pattern: 'client-{n}', count: 2, secret: 's3cret' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
      phases,
    }),
  );
  return path;
}

/**
 * Run the CLI, send `signal` once `ready()` holds, and return its result with the time from the
 * signal to the exit.
 */
async function interrupted(
  args: string[],
  ready: () => boolean,
  signal: NodeJS.Signals = 'SIGINT',
  onSpawn?: (child: ChildProcess) => void,
): Promise<CliResult & { stopMs: number }> {
  let child: ChildProcess | undefined;
  let signalledAt = 0;
  const exited = runRpcload(args, {
    timeoutMs: 40_000,
    onSpawn: (c) => {
      child = c;
      onSpawn?.(c);
    },
  });
  await until(ready, 30_000);
  signalledAt = performance.now();
  child!.kill(signal);
  const result = await exited;
  return { ...result, stopMs: performance.now() - signalledAt };
}

/** Whether process `pid` has `file` open now (Linux: one of its /proc/PID/fd links names it). */
function readsFile(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false; // closed meanwhile
      }
    });
  } catch {
    return false;
  }
}

describe('one signal stops every stage within about 2 s and writes the result file', () => {
  it('SIGINT while fetching tokens from a server that never answers', async () => {
    server = await startHostileApi(neverAnswer, neverAnswer);
    const out = join(dir, 'tokens.json');
    const profile = await profileFile('tokens', [{ duration: '5s', rate: 2 }]);
    const cli = await interrupted(
      ['run', profile, '--target', server.url, '--ui', 'none', '--out', out],
      () => tokenRequests(server!) >= 2,
    );
    expect(cli.code).toBe(130);
    expect(cli.stderr).toMatch(/^rpcload: stopping/m);
    expect(cli.stopMs).toBeLessThan(STOP_BUDGET_MS);
    const result = await readResultFile(out);
    expect(result.run.status).toBe('aborted');
    expect(result.summary.requests).toBe(0);
  }, 45_000);

  it('SIGTERM during the load, with every request hanging', async () => {
    server = await startHostileApi(neverAnswer);
    const out = join(dir, 'load.json');
    const profile = await profileFile('load', [{ duration: '20s', rate: 5 }]);
    const cli = await interrupted(
      ['run', profile, '--target', server.url, '--ui', 'none', '--out', out],
      () => apiRequests(server!) >= 3,
      'SIGTERM',
    );
    expect(cli.code).toBe(130);
    expect(cli.stopMs).toBeLessThan(STOP_BUDGET_MS);
    const result = await readResultFile(out);
    expect(result.run.status).toBe('aborted');
    // Sent and never answered: counted as such, not as arrivals never sent.
    expect(result.summary.outcomes['transport:unanswered']).toBeGreaterThanOrEqual(3);
    expect(result.summary.skipped).toEqual({});
  }, 45_000);

  it('SIGINT during the drain after the last phase', async () => {
    server = await startHostileApi(neverAnswer);
    const out = join(dir, 'drain.json');
    const profile = await profileFile('drain', [{ duration: '1s', rate: 4 }]);
    let firstAt = 0;
    const cli = await interrupted(['run', profile, '--target', server.url, '--ui', 'none', '--out', out], () => {
      if (firstAt === 0 && apiRequests(server!) > 0) firstAt = performance.now();
      return firstAt > 0 && performance.now() - firstAt > 2000; // the phase is over: draining
    });
    expect(cli.code).toBe(130);
    expect(cli.stopMs).toBeLessThan(STOP_BUDGET_MS);
    expect((await readResultFile(out)).summary.outcomes).toEqual({ 'transport:unanswered': 4 });
  }, 45_000);

  it('SIGINT while a large data set is read before the run: stops at once, not at the watchdog', async () => {
    server = await startHostileApi(answerSuccess);
    const rows = join(dir, 'rows.csv');
    // Large enough (83 MB: several seconds to read) that a reading deaf to the signal would go on
    // well past the stop's budget below; the signal arrives while the file is being read.
    const chunk = Array.from({ length: 100_000 }, (_, i) => `${i},user${i}@example.com`).join('\n');
    await writeFile(rows, `id,email\n${chunk}`);
    for (let i = 1; i < 30; i++) await appendFile(rows, `\n${chunk}`);
    const profile = join(dir, 'data-profile.json');
    await writeFile(
      profile,
      JSON.stringify({
        clients: { pattern: 'client-{n}', count: 2, secret: 's3cret' },
        data: { users: { file: rows } },
        scenarios: [{ name: 'ping', steps: [{ method: 'ping', args: { email: '{{data.users.email}}' } }] }],
        phases: [{ duration: '5s', rate: 2 }],
      }),
    );
    const out = join(dir, 'data.json');
    let pid = 0;
    const cli = await interrupted(
      ['run', profile, '--target', server.url, '--ui', 'none', '--out', out],
      () => pid > 0 && readsFile(pid, rows),
      'SIGINT',
      (child) => (pid = child.pid ?? 0),
    );
    expect(cli.code).toBe(130);
    expect(cli.stderr).not.toContain('still not stopped');
    expect(cli.stopMs).toBeLessThan(DATA_SCAN_STOP_BUDGET_MS);
    expect(apiRequests(server)).toBe(0);
    expect(tokenRequests(server)).toBe(0); // stopped before the run began
    const result = await readResultFile(out);
    expect(result.run.status).toBe('aborted');
    expect(result.summary.requests).toBe(0);
  }, 45_000);

  it("SIGINT during verify's start-up probe is an interruption (130), not an unreachable target (2)", async () => {
    server = await startHostileApi(answerSuccess, neverAnswer);
    const out = join(dir, 'verify.json');
    const cli = await interrupted(
      ['verify', '--target', server.url, '--client', 'a:s3cret', '--method', 'ping', '--ui', 'none', '--out', out],
      () => tokenRequests(server!) >= 1,
    );
    expect(cli.code).toBe(130);
    expect(cli.stopMs).toBeLessThan(STOP_BUDGET_MS);
    const result = await readResultFile(out);
    expect(result.run.status).toBe('aborted');
    expect(result.checks.every((c) => c.verdict === 'skip')).toBe(true);
  }, 45_000);
});
