// test-pass: both-clients
/**
 * The target falls over in the middle of a run (what a capacity search pushes it to): its process
 * dies with requests in flight, and every later connection is refused. The run must go on to its
 * end — the in-flight requests recorded as transport errors, each refused reconnect counted as
 * transport:ECONNREFUSED — and write its result file, on one thread and with `--workers 2` alike.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import { startServeProcess } from '../support/serve-process.ts';
import { apiRequests, neverAnswer, startHostileApi, until } from '../support/stalling-api.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rpcload-target-dies-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * 100/s for 5 s: more calls than the run's 64 connections are soon held open, so some wait for a
 * connection when the target dies — the case that crashed the run (a request handed to a
 * connection while undici was still failing that connection's queue).
 */
const RUN_FLAGS = [
  '--client',
  'client-1:demo-secret',
  '--client',
  'client-2:demo-secret',
  '--rate',
  '100',
  '--duration',
  '5s',
];
/** 5 s at 100/s. */
const ARRIVALS = 500;
const CONNECTIONS = 64;

/** Arrivals the open model did not send (e.g. max in-flight reached), by any reason. */
const skippedArrivals = (result: RunResult): number =>
  Object.values(result.summary.skipped).reduce((sum, n) => sum + n, 0);

describe('a target that dies with requests in flight', () => {
  it.each([1, 2])(
    '--workers %i: the run goes on, counts what failed and writes its result',
    async (workers) => {
      // Answers tokens, holds every API call open; "dies" (every socket closed, the port refused) once
      // every connection holds a call and more calls wait for one.
      const server = await startHostileApi(neverAnswer);
      const out = join(dir, `dies-${workers}.json`);
      const run = runRpcload(
        [
          'run',
          '--target',
          server.url,
          '--method',
          'ping',
          ...RUN_FLAGS,
          '--ui',
          'none',
          '--workers',
          String(workers),
          '--out',
          out,
        ],
        {
          timeoutMs: 60_000,
        },
      );
      try {
        await until(() => apiRequests(server) >= CONNECTIONS, 15_000);
        await new Promise((resolve) => setTimeout(resolve, 1000)); // ~100 more calls wait for a connection
      } finally {
        await server.close();
      }
      const cli = await run;
      expect(cli.stderr).not.toMatch(/AssertionError|internal error|\n\s+at /);
      expect(cli.code).toBe(0);
      const result = await readResultFile(out);
      expect(result.run.status).toBe('completed');
      const { outcomes, requests } = result.summary;
      // The calls held open when it died end as transport errors (a closed socket), not as lost requests.
      const inFlight = Object.entries(outcomes).filter(
        ([key]) => key.startsWith('transport:') && key !== 'transport:ECONNREFUSED',
      );
      expect(inFlight.reduce((sum, [, count]) => sum + count, 0)).toBeGreaterThanOrEqual(CONNECTIONS);
      // The rest of the run, against a refused port: counted, not dropped.
      expect(outcomes['transport:ECONNREFUSED']).toBeGreaterThan(0);
      expect(requests + skippedArrivals(result)).toBe(ARRIVALS); // every arrival accounted for
    },
    90_000,
  );

  it('`rpcload serve` killed with SIGKILL while its slow calls are in flight', async () => {
    const serve = await startServeProcess(['--limit', '100000']);
    const out = join(dir, 'serve-killed.json');
    let progress: Promise<void> = Promise.resolve();
    const run = runRpcload(
      ['run', '--target', serve.url, '--method', 'work:{"delayMs":5000}', ...RUN_FLAGS, '--ui', 'plain', '--out', out],
      {
        timeoutMs: 60_000,
        // The first progress line comes 2 s into the load: 200 calls of 5 s each sent, most of them waiting for a connection.
        onSpawn: (child) => {
          progress = new Promise((resolve) =>
            child.stderr!.on('data', (chunk: Buffer) => /^\[/m.test(chunk.toString()) && resolve()),
          );
        },
      },
    );
    await Promise.race([progress, run]);
    await serve.kill('SIGKILL');
    const cli = await run;
    expect(cli.stderr).not.toMatch(/AssertionError|internal error|\n\s+at /);
    expect(cli.code).toBe(0);
    const result = await readResultFile(out);
    expect(result.run.status).toBe('completed');
    expect(result.summary.outcomes['transport:ECONNREFUSED']).toBeGreaterThan(0);
    expect(result.summary.requests + skippedArrivals(result)).toBe(ARRIVALS);
  }, 90_000);
});
