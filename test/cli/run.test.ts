import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateRunResult } from '../../src/result-file/validate-result.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { runRpcload, runRpcloadListingBuiltins } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';
import { testHttpClient } from '../support/http-client.ts';

const dir = useTempDir('rpcload-run-');
const profileDir = join(dir, 'profiles');
mkdirSync(profileDir);
const SECRET = 'correct-horse-battery-staple';
let server: ServerHandle;
beforeAll(async () => {
  server = await startServer({
    clients: [
      { id: 'alpha', secret: SECRET },
      { id: 'beta', secret: SECRET },
    ],
    limit: 10_000,
  });
});
afterAll(() => server.close());

function profile(name: string, body: Record<string, unknown>): string {
  const path = join(profileDir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }], ...body }));
  return path;
}

function readResult(path: string): RunResult {
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateRunResult(value)).toEqual([]);
  return value as RunResult;
}

describe('rpcload run', () => {
  it('runs the demo profile against the embedded server and writes a valid result file', async () => {
    const out = join(dir, 'demo.json');
    const run = await runRpcload(['run', '--rate', '30', '--duration', '3s', '--out', out, '--json']);
    const result = readResult(out);
    expect(result.run).toMatchObject({
      status: 'completed',
      embeddedTarget: true,
      profile: 'demo',
      kind: 'run',
      model: 'open',
    });
    // the load's client, the default unless the tests chose one
    expect(result.run.httpClient).toBe(testHttpClient() ?? 'rpcload');
    expect(result.summary.requests).toBeGreaterThanOrEqual(90);
    expect(run.code).toBe(result.thresholds.every((t) => t.ok) ? 0 : 1);
    const printed = JSON.parse(run.stdout) as { resultFile: string; summary: { requests: number } };
    expect(printed).toMatchObject({ resultFile: out, summary: { requests: result.summary.requests } });
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s mid-run: exit 130 and an aborted result file that validates',
    async (signal) => {
      const out = join(dir, `aborted-${signal}.json`);
      const path = profile(`long-${signal}`, {
        clients: { list: [{ id: 'alpha', secret: '${SECRET}' }] },
        phases: [{ duration: '60s', rate: 20 }],
      });
      const started = Date.now();
      const run = await runRpcload(['run', path, '--target', server.url, '--out', out, '--ui', 'plain'], {
        env: { SECRET },
        timeoutMs: 30_000,
        // Interrupt once the run is under way: its second progress line (start-up time varies).
        onSpawn: (child) => {
          let lines = 0;
          child.stderr?.on('data', (chunk: Buffer) => {
            const before = lines;
            lines += (chunk.toString().match(/ requests \d+/g) ?? []).length;
            if (before < 2 && lines >= 2) child.kill(signal); // once: a second signal means "quit at once"
          });
        },
      });
      expect(run.code).toBe(130);
      expect(Date.now() - started).toBeLessThan(20_000);
      const result = readResult(out);
      expect(result.run.status).toBe('aborted');
      expect(result.summary.requests).toBeGreaterThan(10);
    },
  );

  it('checkpoints a running result file that already validates, also when Node is given flags a worker refuses', async () => {
    const out = join(dir, 'checkpointed.json');
    const path = profile('checkpointed', {
      clients: { list: [{ id: 'alpha', secret: '${SECRET}' }] },
      checkpointEvery: '500ms',
      phases: [{ duration: '6s', rate: 20 }],
    });
    let midRun: unknown;
    // Read when the first progress line shows the run under way (start-up time varies).
    const run = await runRpcload(['run', path, '--target', server.url, '--out', out, '--ui', 'plain'], {
      env: { SECRET },
      // V8's flags: a worker thread (the checkpoint writer's) given them refused to start.
      nodeFlags: ['--max-old-space-size=2048', '--stack-trace-limit=30'],
      // Poll from the first progress line until the first checkpoint is there (a busy machine may take a while).
      onSpawn: (child) =>
        child.stderr?.once('data', () => {
          const poll = setInterval(() => {
            if (!existsSync(out)) return;
            clearInterval(poll);
            midRun = JSON.parse(readFileSync(out, 'utf8')) as unknown;
          }, 50);
          child.once('exit', () => clearInterval(poll));
        }),
    });
    expect(run.code).toBe(0);
    expect(validateRunResult(midRun)).toEqual([]);
    expect((midRun as RunResult).run).toMatchObject({ status: 'running', endedAt: null });
    const final = readResult(out);
    expect(final.run.status).toBe('completed');
    expect(final.warnings.filter((w) => w.includes('checkpoint'))).toEqual([]);
  });

  it('never writes a secret or a token into the result file or the output', async () => {
    const out = join(dir, 'secrets.json');
    const path = profile('secrets', {
      clients: {
        list: [
          { id: 'alpha', secret: '${SECRET}' },
          { id: 'beta', secret: '${SECRET}' },
        ],
      },
      phases: [{ duration: '1s', rate: 20 }],
    });
    const run = await runRpcload(['run', path, '--target', server.url, '--out', out], { env: { SECRET } });
    expect(run.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    for (const leak of [SECRET, 'Bearer ']) {
      expect(text).not.toContain(leak);
      expect(run.stdout + run.stderr).not.toContain(leak);
    }
  });

  it("over plain HTTP/1.1 on rpcload's own client, loads neither TLS, HTTP/2, worker threads nor child processes", async () => {
    // What they would cost every such run's start-up: node:tls ~13 ms of CPU, node:http2 with
    // node:https ~10 ms, node:child_process (commander's) ~7 ms.
    const path = profile('builtins', {
      clients: { list: [{ id: 'alpha', secret: '${SECRET}' }] },
      phases: [{ duration: '1s', rate: 10 }],
    });
    const out = join(dir, 'builtins.json');
    const args = ['run', path, '--target', server.url, '--out', out, '--http-client', 'rpcload', '--ui', 'none'];
    const { builtins, ...run } = await runRpcloadListingBuiltins(args, { env: { SECRET } });
    expect(run.code, run.stderr).toBe(0);
    expect(readResult(out).summary.requests).toBeGreaterThanOrEqual(9);
    expect(builtins).toContain('http'); // the token requests' client: the list is the one the run made
    const unused = ['tls', 'https', 'http2', 'worker_threads', 'child_process'];
    expect(builtins.filter((name) => unused.includes(name))).toEqual([]);
  });

  it.each([
    // a threshold that holds → 0; one that cannot hold → 1
    ['requests > 0', 0],
    ['p50 < 0.001ms', 1],
  ])('threshold %j sets exit code %i', async (threshold, code) => {
    const out = join(dir, `threshold-${code}.json`);
    const path = profile(`threshold-${code}`, {
      clients: { list: [{ id: 'alpha', secret: '${SECRET}' }] },
      phases: [{ duration: '1s', rate: 10 }],
      thresholds: [threshold],
    });
    const run = await runRpcload(['run', path, '--target', server.url, '--out', out], { env: { SECRET } });
    expect(run.code).toBe(code);
    expect(readResult(out).thresholds).toEqual([expect.objectContaining({ expr: threshold, ok: code === 0 })]);
  });

  it.each([
    // every profile problem at once, one line each, naming the file and the JSON path
    [
      { phases: [{ duration: 'soon', rate: -1 }], thresholds: ['p99 <'] },
      /bad\.json: \/phases\/0\/duration: .*\n.*bad\.json: \/phases\/0\/rate: .*\n.*bad\.json: \/thresholds\/0: /,
    ],
  ])('rejects an invalid profile with exit 2 and no stack trace', async (body, message) => {
    const run = await runRpcload(['run', profile('bad', body)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports an unreachable target with exit 2', async () => {
    const path = profile('unreachable', {
      clients: { list: [{ id: 'alpha', secret: 'x' }] },
      phases: [{ duration: '1s', rate: 1 }],
    });
    const run = await runRpcload(['run', path, '--target', 'http://127.0.0.1:9', '--out', join(dir, 'never.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^rpcload: no client could obtain a token from http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED/m,
    );
  });
});
