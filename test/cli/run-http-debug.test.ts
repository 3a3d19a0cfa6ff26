/** `rpcload run --http-debug[=N]` from the command line: the first N exchanges on stderr, nothing else changed. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-http-debug-cli-');

describe('rpcload run --http-debug', { timeout: 60_000 }, () => {
  it.each([
    ['--http-debug=2', 2],
    ['--http-debug', 10],
  ])('%s prints the first %d exchanges to stderr, the secret and the token redacted', async (flag, n) => {
    const out = join(dir, `${n}.json`);
    // One client: its token request, then the load's requests.
    const run = await runRpcload([
      'run',
      '--clients',
      '1',
      '--rate',
      '20',
      '--duration',
      '1s',
      '--ui',
      'none',
      '--out',
      out,
      flag,
    ]);
    // (The demo profile's thresholds may fail on so short a run: exit 1 then, never 2.)
    expect([0, 1]).toContain(run.code);
    const heads = [...run.stderr.matchAll(/^── http-debug (\d+)\/(\d+) ──$/gm)].map((m) => `${m[1]}/${m[2]}`);
    expect(heads).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}/${n}`));
    expect(run.stderr).toMatch(/^> .*client_secret=\[redacted\]/m);
    expect(run.stderr).toMatch(/"access_token":"\[redacted\]"/);
    expect(run.stderr).toMatch(/^> POST \/api\/\S+$/m);
    expect(run.stderr).toMatch(/^> authorization: \[redacted\]$/m);
    expect(run.stderr).toMatch(/^< 200$/m);
    expect(run.stderr).toMatch(/^< \{"status":"success","data":/m);
    expect(run.stdout).not.toContain('── http-debug');
    const result = JSON.parse(readFileSync(out, 'utf8')) as RunResult;
    expect(result.run.status).toBe('completed');
    expect(result.summary.requests).toBeGreaterThan(n);
  });

  it('is refused with --workers (it prints from one thread)', async () => {
    const run = await runRpcload([
      'run',
      '--rate',
      '20',
      '--duration',
      '1s',
      '--ui',
      'none',
      '--workers',
      '2',
      '--http-debug',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^rpcload: --http-debug: prints from one thread; drop --workers$/);
  });
});
