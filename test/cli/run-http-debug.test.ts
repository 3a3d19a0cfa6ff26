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
  ])('%s prints the first %d exchanges to stderr, the token redacted', async (flag, n) => {
    const out = join(dir, `${n}.json`);
    const run = await runRpcload(['run', '--rate', '20', '--duration', '1s', '--ui', 'none', '--out', out, flag]);
    expect(run.code).toBe(0);
    const heads = [...run.stderr.matchAll(/^── http-debug (\d+)\/(\d+) ──$/gm)].map((m) => `${m[1]}/${m[2]}`);
    expect(heads).toEqual(Array.from({ length: n }, (_, i) => `${i + 1}/${n}`));
    expect(run.stderr).toMatch(/^> POST \/api\/\S+$/m);
    expect(run.stderr).toMatch(/^> authorization: \[redacted\]$/m);
    expect(run.stderr).toMatch(/^< 200$/m);
    expect(run.stderr).toMatch(/^< \{"status":"success","data":/m);
    expect(run.stdout).not.toContain('── http-debug');
    expect((JSON.parse(readFileSync(out, 'utf8')) as RunResult).summary.requests).toBeGreaterThan(n);
  });

  it('is refused with --workers (it prints from one thread)', async () => {
    const run = await runRpcload(['run', '--rate', '20', '--duration', '1s', '--ui', 'none', '--workers', '2', '--http-debug']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^rpcload: --http-debug: prints from one thread; drop --workers$/);
  });
});
