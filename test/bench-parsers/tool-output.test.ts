/**
 * The bench's tool runners on real output (test/bench itself is not run by vitest): autocannon's
 * CLI, the bare undici loops (closed, and the open one beside the open-model runs) and wrk run for 1 s under the measuring wrapper against the bench's own
 * target (nginx when it is on the PATH, else its raw-socket responder; under CI=true both nginx and
 * wrk must be there, see support/system-program.ts); their parsed figures must be positive and consistent,
 * and the wrapper must have measured CPU and a peak RSS. A scripted server checks that both send
 * the bench's request (method, path, headers, body), since wrk quietly sends GETs when its
 * script does not load.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autocannonArgv, parseAutocannonJson } from '../bench/autocannon-cli.ts';
import { bareUndiciArgv, parseBareUndiciJson } from '../bench/bare-undici-cli.ts';
import { BENCH_TOKEN, REQUEST_BODY, REQUEST_PATH, type BenchTarget } from '../bench/bench-target.ts';
import { startNginx } from '../bench/nginx-target.ts';
import { startRawResponder } from '../bench/raw-target.ts';
import { runTool, type ToolOutcome } from '../bench/run-tool.ts';
import type { ToolCount } from '../bench/tool-spec.ts';
import { parseWrkOutput, wrkArgv, writeWrkScript } from '../bench/wrk-cli.ts';
import { sendJson, startScriptedServer } from '../support/http-server.ts';
import { requireProgram } from '../support/system-program.ts';
import { useTempDir } from '../support/temp-dir.ts';

const HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_TOKEN}` };
const DURATION_S = 1;
const CONNECTIONS = 8;
const wrkProgram = requireProgram('wrk', { package: 'wrk' });
const wrk = wrkProgram.path;
const nginx = requireProgram('nginx', {
  package: 'nginx-light',
  withoutIt: 'the bench tool runners are tested against the raw-socket responder',
});

let target: BenchTarget;
const workDir = useTempDir('rpcload-bench-parsers-');
beforeAll(async () => {
  target = (nginx.path === null ? null : await startNginx(() => undefined, false)) ?? (await startRawResponder());
});
afterAll(async () => {
  await target.close();
});

const autocannonCommand = (url: string, connections = CONNECTIONS): string[] =>
  autocannonArgv({
    url: `${url}${REQUEST_PATH}`,
    headers: HEADERS,
    body: REQUEST_BODY,
    connections,
    durationS: DURATION_S,
  });
const wrkCommand = (binary: string, url: string, connections = CONNECTIONS): string[] =>
  wrkArgv(binary, {
    url: `${url}${REQUEST_PATH}`,
    // A directory of its own per command: the tests run concurrently and wrk reads its script at start.
    script: writeWrkScript(mkdtempSync(join(workDir, 'wrk-')), HEADERS, REQUEST_BODY),
    connections,
    durationS: DURATION_S,
  });

/** What must hold of any tool's parsed figures and of the wrapper's measurements. */
function expectConsistent(outcome: ToolOutcome, count: ToolCount): void {
  // A busy machine can slow a 1 s run to a few hundred requests; the point is that they were counted.
  expect(count.requests).toBeGreaterThan(20);
  expect(count.durationS).toBeGreaterThanOrEqual(DURATION_S * 0.9);
  expect(count.durationS).toBeLessThan(DURATION_S * 3);
  // The tool's own rate agrees with its count and duration (wrk prints both rounded).
  expect(Math.abs(count.requestsPerS - count.requests / count.durationS) / count.requestsPerS).toBeLessThan(0.1);
  expect(count.p50Ms).toBeGreaterThanOrEqual(0);
  expect(count.p50Ms).toBeLessThanOrEqual(count.p99Ms);
  expect(count.p99Ms).toBeGreaterThan(0);
  expect(count.failures).toBe(0);
  expect(outcome.run.exitCode).toBe(0);
  expect(outcome.run.cpuS).toBeGreaterThan(0);
  // It ran for its duration, so it cannot have used more than both cores all the time.
  expect(outcome.run.cpuS).toBeLessThan(outcome.run.wallS * 2.5);
  expect(outcome.run.wallS).toBeGreaterThanOrEqual(DURATION_S);
  expect(outcome.run.peakRssMb).toBeGreaterThan(1);
  expect(outcome.run.peakRssMb).toBeLessThan(2000);
}

// Concurrent: each test waits mostly on its own 1 s run and tool start-up; the figures checked hold under sharing.
describe
  .skipIf(process.platform !== 'linux')
  .concurrent('the bench tool runners (Linux only: the wrapper reads /proc)', () => {
    it('run autocannon through its CLI and read its JSON, CPU and peak RSS', async () => {
      const outcome = await runTool({ argv: autocannonCommand(target.url), deadlineS: 30 }, workDir, 'autocannon');
      const count = parseAutocannonJson(outcome.stdout);
      expectConsistent(outcome, count);
      // A Node process: tens of MB at least.
      expect(outcome.run.peakRssMb).toBeGreaterThan(20);
    });

    it.skipIf(wrk === null)(`run wrk and read its text output${wrkProgram.skipNote}`, async () => {
      const outcome = await runTool({ argv: wrkCommand(wrk!, target.url), deadlineS: 30 }, workDir, 'wrk');
      expectConsistent(outcome, parseWrkOutput(outcome.stdout));
    });

    it('run the bare undici loop and read its count', async () => {
      const argv = bareUndiciArgv({
        url: `${target.url}${REQUEST_PATH}`,
        headers: HEADERS,
        body: REQUEST_BODY,
        connections: CONNECTIONS,
        durationS: DURATION_S,
      });
      const outcome = await runTool({ argv, deadlineS: 30 }, workDir, 'bare-undici');
      const count = parseBareUndiciJson(outcome.stdout);
      expectConsistent(outcome, { ...count, p99Ms: 1 }); // it measures no latency
      expect(count.p99Ms).toBe(0);
    });

    it('run the bare undici open loop: every arrival sent, its lag measured after the warm-up', async () => {
      // 400/s for 1 s over 8 connections, the first 0.25 s a warm-up: 400 sent, 300 of them judged.
      const script = join(import.meta.dirname, '..', 'bench', 'bare-undici-open-loop.js');
      const argv = [process.execPath, script, `${target.url}${REQUEST_PATH}`, '400', '1', '8', '0.25'];
      const outcome = await runTool(
        { argv: [...argv, JSON.stringify(HEADERS), REQUEST_BODY], deadlineS: 30 },
        workDir,
        'bare-open',
      );
      const figures = JSON.parse(outcome.stdout) as Record<string, number>;
      expect(figures).toMatchObject({ rate: 400, sent: 400 });
      expect(figures.lagP50Ms).toBeGreaterThanOrEqual(0);
      expect(figures.lagP99Ms).toBeGreaterThanOrEqual(figures.lagP50Ms!);
      expect(figures.lagMaxMs).toBeGreaterThanOrEqual(figures.lagP99Ms!);
    });

    it.skipIf(wrk === null)(
      `refuses wrk output when its request script did not load (wrk then sends GETs and exits 0)${wrkProgram.skipNote}`,
      async () => {
        const broken = join(workDir, 'broken.lua');
        writeFileSync(broken, 'wrk.headers[[[content-type]]] = "application/json"\n');
        const argv = wrkArgv(wrk!, {
          url: `${target.url}${REQUEST_PATH}`,
          script: broken,
          connections: 1,
          durationS: DURATION_S,
        });
        const outcome = await runTool({ argv, deadlineS: 30 }, workDir, 'wrk-broken');
        expect(outcome.stdout).toMatch(/requests in/);
        expect(() => parseWrkOutput(outcome.stdout)).toThrow(/did not run the request script/);
      },
    );

    const requestChecks: [string, (url: string) => string[]][] = [
      ['autocannon', (url) => autocannonCommand(url, 1)],
      [
        'the bare undici loop',
        (url) =>
          bareUndiciArgv({
            url: `${url}${REQUEST_PATH}`,
            headers: HEADERS,
            body: REQUEST_BODY,
            connections: 1,
            durationS: DURATION_S,
          }),
      ],
    ];
    if (wrk !== null) requestChecks.push(['wrk', (url) => wrkCommand(wrk, url, 1)]);
    it.each(requestChecks)(
      '%s sends the bench request: POST, path, content type, bearer token and body',
      async (name, command) => {
        const server = await startScriptedServer((_req, res) =>
          sendJson(res, 200, '{"status":"success","data":{"pong":true}}'),
        );
        try {
          await runTool({ argv: command(server.url), deadlineS: 30 }, workDir, `${name}-request`);
          expect(server.seen.length).toBeGreaterThan(0);
          const seen = server.seen[0]!;
          expect(seen.method).toBe('POST');
          expect(seen.url).toBe(REQUEST_PATH);
          expect(seen.headers['content-type']).toBe('application/json');
          expect(seen.headers.authorization).toBe(`Bearer ${BENCH_TOKEN}`);
          expect(seen.body).toBe(REQUEST_BODY);
        } finally {
          await server.close();
        }
      },
    );
  });
