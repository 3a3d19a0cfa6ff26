/**
 * The README's and docs/run.md's example commands, extracted and run as a user would paste them
 * (through bash, `rpcload` and `npx rpcload` being the built CLI), against reference servers on
 * 127.0.0.1 instead of https://api.example.com and shortened to about a second each. A command the
 * CLI refuses (exit 2) or that crashes fails the test, so the docs cannot drift from the code.
 * docs/workloads.md's example profiles run as written, on the embedded reference server and on a
 * real `rpcload serve` (whose orders belong to the client that created them).
 */
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { RPCLOAD_BIN } from '../support/cli.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { boundedCommand, jsonExampleAfter, shellExamples } from '../support/doc-examples.ts';
import { startServeProcess, type ServeProcess } from '../support/serve-process.ts';
import { useTempDir } from '../support/temp-dir.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SECRET = 'docs-example-secret';
const dir = useTempDir('rpcload-docs-');
const binDir = join(dir, 'bin');

/** `rpcload` and `npx rpcload` on PATH, both the built CLI of this checkout. */
function installShims(): void {
  mkdirSync(binDir, { recursive: true });
  const rpcload = join(binDir, 'rpcload');
  writeFileSync(rpcload, `#!/usr/bin/env bash\nexec "${process.execPath}" "${RPCLOAD_BIN}" "$@"\n`);
  const npx = join(binDir, 'npx');
  writeFileSync(
    npx,
    `#!/usr/bin/env bash\n[ "$1" = rpcload ] || { echo "npx $1: not an rpcload example" >&2; exit 97; }\nshift\nexec "${rpcload}" "$@"\n`,
  );
  chmodSync(rpcload, 0o755);
  chmodSync(npx, 0o755);
}

const VERIFY_CONTRACT = { limit: 10, windowMs: 1000 } as const;
let server: ServerHandle;
let verifyServer: ServerHandle;
beforeAll(async () => {
  installShims();
  // The clients the examples use: app-… (one-line runs, verify, the README's profile) and smoke-….
  const clients = {
    clientPattern: { prefix: 'app-', secret: SECRET },
    clients: [1, 2, 3].map((n) => ({ id: `smoke-${n}`, secret: SECRET })),
  };
  // verify's server: 10 per 1 s, so its rate-limit checks need tenfold fewer requests than at 100.
  [server, verifyServer] = await Promise.all([startServer(clients), startServer({ ...clients, ...VERIFY_CONTRACT })]);
});
afterAll(() => Promise.all([server.close(), verifyServer.close()]));

/** Run a command line through bash (asynchronously: the servers answer from this process). */
function bash(
  command: string,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], {
      cwd: ROOT,
      env: {
        ...process.env,
        PATH: `${binDir}:${process.env.PATH}`,
        SECRET,
        SMOKE_SECRET: SECRET,
        NO_COLOR: '1',
        CI: 'true',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const examples = [
  ...shellExamples(join(ROOT, 'README.md'), 'README.md'),
  ...shellExamples(join(ROOT, 'docs/run.md'), 'docs/run.md'),
  ...shellExamples(join(ROOT, 'docs/workloads.md'), 'docs/workloads.md'),
].filter((example) => !/^npm /.test(example.text)); // npm ci / npm start / npm test: the run examples cover `rpcload run profiles/demo.json`

describe('documented examples', { timeout: 120_000 }, () => {
  it('finds the examples (README: one-line run, smoke, verify; docs/run.md: its examples)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(9);
    expect(examples.map((e) => e.text)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^npx rpcload verify /),
        expect.stringMatching(/^rpcload run --target .* --method ping@3 /),
      ]),
    );
  });

  // Concurrently: each example mostly waits on its run's clock, and each accepts either verdict (0 or 1).
  it.concurrent.for(examples.map((example, index) => [example.where, example.text, index] as const))(
    '%s: %s',
    async ([, text, index], { expect }) => {
      const isVerify = /\brpcload verify\b/.test(text);
      const out = join(dir, `example-${index}.json`);
      const target = isVerify ? verifyServer.url : server.url;
      const command = boundedCommand(text, { target, out, verifyWindow: '1s', verifyLimit: VERIFY_CONTRACT.limit });
      expect(command).not.toBeNull();
      const result = await bash(command!);
      const context = `${command}\nexit ${result.status}\nstderr: ${result.stderr}`;
      // 0 or 1 (a threshold or check of an example written for another API may fail); never bad input or a crash.
      expect([0, 1], context).toContain(result.status);
      expect(result.stderr, context).not.toMatch(/internal error|\n\s+at /);
      expect(existsSync(out), context).toBe(true);
    },
  );

  it("README's own profile validates and runs against a target with API_URL and CLIENT_SECRET set", async () => {
    const profile = join(dir, 'my-api.json');
    writeFileSync(profile, jsonExampleAfter(join(ROOT, 'README.md'), 'For your own methods, copy a profile'));
    // A server of its own: the other examples spend the app-… clients' quotas on the shared one.
    const own = await startServer({ clientPattern: { prefix: 'app-', secret: SECRET } });
    const env = { API_URL: own.url, CLIENT_SECRET: SECRET };
    const validate = await bash(`npx rpcload profile validate ${profile}`, env);
    expect(validate.stdout).toMatch(/my-api\.json: ok — 1 scenario, 1 phase, 10 clients/);
    const out = join(dir, 'my-api-result.json');
    const run = await bash(`npx rpcload run ${profile} --duration 1s --ui none --out ${out}`, env);
    expect(run.status, run.stderr).toBe(0);
    await own.close();
    expect(
      (JSON.parse(readFileSync(out, 'utf8')) as { summary: { outcomes: Record<string, number> } }).summary.outcomes,
    ).toEqual({
      success: 20,
    });
  });

  it('rpcload profile validate profiles/*.json, as docs/profiles.md says', async () => {
    const validate = await bash('rpcload profile validate profiles/*.json');
    expect(validate.status, validate.stderr).toBe(0);
    const bundled = readdirSync(join(ROOT, 'profiles')).filter((name) => name.endsWith('.json'));
    expect(validate.stdout.trim().split('\n')).toHaveLength(bundled.length);
  });
});

/** Every ```LANG block of a markdown file, in order. */
function codeBlocks(path: string, lang: string): string[] {
  return [...readFileSync(path, 'utf8').matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\\n\`\`\``, 'g'))].map(
    (m) => m[1]!,
  );
}

describe(
  'docs/workloads.md example profiles, as written, on the embedded server and on rpcload serve',
  { timeout: 120_000 },
  () => {
    const page = join(ROOT, 'docs/workloads.md');
    const profiles = codeBlocks(page, 'json').map(
      (text) => JSON.parse(text) as { name: string; workloads?: unknown[] },
    );
    let serve: ServeProcess;
    beforeAll(async () => {
      // The files the examples read, as the page shows them (and the shop's recording, beside it).
      writeFileSync(join(dir, 'users.csv'), `${codeBlocks(page, 'csv')[0]!}\n`);
      copyFileSync(join(ROOT, 'examples/workloads/recorded.jsonl'), join(dir, 'recorded.jsonl'));
      serve = await startServeProcess(['--port', '0']);
    });
    afterAll(() => serve.stop());

    it('has the workloads, flow, data and arrivals examples; the shop is examples/workloads/shop.json', () => {
      expect(profiles.map((p) => p.name)).toEqual(['shop', 'orders-flow', 'users-once', 'bursty-callers']);
      const shop = JSON.parse(readFileSync(join(ROOT, 'examples/workloads/shop.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      delete shop.$schema;
      delete shop.description;
      expect(profiles[0]).toEqual(shop);
    });

    it.concurrent.for(
      profiles.flatMap((p, i) => [[p.name, 'embedded', i] as const, [p.name, 'rpcload serve', i] as const]),
    )('%s runs as written on the %s', async ([name, where, index], { expect }) => {
      const profile = join(dir, `${name}-${where === 'embedded' ? 'embedded' : 'serve'}.json`);
      writeFileSync(profile, JSON.stringify(profiles[index]));
      const out = join(dir, `${name}-${where === 'embedded' ? 'embedded' : 'serve'}-result.json`);
      // One workload: shortened with --duration; several: as written (a few seconds).
      const shorter = profiles[index]!.workloads === undefined ? ' --duration 2s' : '';
      const target = where === 'embedded' ? '' : ` --target ${serve.url}`;
      const run = await bash(`rpcload run ${profile}${target}${shorter} --ui none --out ${out}`);
      const context = `exit ${run.status}\n${run.stdout}\n${run.stderr}`;
      expect(run.status, context).toBe(0); // every threshold of the example passes against the reference server
      const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
      const flowOutcomes = Object.keys(result.summary.outcomes).filter(
        (k) => k.startsWith('expect:') || k.startsWith('flow:'),
      );
      expect(flowOutcomes, context).toEqual([]);
      expect(result.summary.requests, context).toBeGreaterThan(0);
      if (name === 'orders-flow') {
        // The only errors are the expected not_found of the last get of each iteration.
        const errors = Object.entries(result.byMethod).flatMap(([method, stats]) =>
          Object.keys(stats.outcomes)
            .filter((outcome) => outcome !== 'success')
            .map((outcome) => `${method} ${outcome}`),
        );
        expect([...new Set(errors)], context).toEqual(['orders.get error:not_found']);
      }
      if (name === 'users-once') {
        // Three rows, each once, then the run ended by itself.
        expect(result.summary.requests, context).toBe(3);
        expect(result.warnings.join('\n')).toContain('data set "users" ran out of rows (onEnd: stop)');
      }
      if (name === 'shop') {
        expect(Object.keys(result.byWorkload!)).toEqual(['browse', 'orders', 'recorded']);
        expect(result.setup).toMatchObject({ status: 'ok', saved: ['fixtureId'] });
        expect(result.teardown).toMatchObject({ status: 'ok' });
      }
    });
  },
);
