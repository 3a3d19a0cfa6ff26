/**
 * verify against an API that never answers (tokens are issued, every call hangs): once a check
 * ends target_broken because its calls went unanswered until their timeout, the others are
 * skipped at once with that reason, instead of each waiting out the same timeouts in turn
 * (minutes in all: the envelope check alone sends 40 calls one after another).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import { neverAnswer, startHostileApi } from '../support/stalling-api.ts';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rpcload-silent-'));
  server = await startHostileApi(neverAnswer);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('verify against a target that never answers', () => {
  it('skips every check soon after the first timeout, each saying why', async () => {
    const out = join(dir, 'silent.json');
    const clients = ['a', 'b', 'c', 'd', 'e', 'f'].flatMap((id) => ['--client', `${id}:s3cret`]);
    const started = Date.now();
    const cli = await runRpcload(
      [
        'verify',
        '--target',
        server.url,
        ...clients,
        '--method',
        'ping',
        '--method',
        'echo',
        '--timeout',
        '2s',
        '--ui',
        'none',
        '--out',
        out,
      ],
      { timeoutMs: 120_000 },
    );
    // One round of 2 s timeouts, not one per call: before, the envelope check alone took 40 × 2 s
    // (the bound leaves room for a loaded machine).
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(cli.code, cli.stderr).toBe(1);
    const { checks } = await readResultFile(out);
    const broken = checks.filter((c) => c.skipClass === 'target_broken');
    expect(broken.map((c) => c.id).sort()).toEqual(
      checks
        .filter((c) => c.skipClass !== 'not_applicable')
        .map((c) => c.id)
        .sort(),
    );
    expect(broken.length).toBeGreaterThanOrEqual(9);
    const first = broken.filter((c) => !c.detail.startsWith('not run: '));
    expect(first.length).toBeGreaterThanOrEqual(1);
    for (const check of broken.filter((c) => c.detail.startsWith('not run: ')))
      expect(check.detail).toMatch(
        /^not run: the target left [a-z_.]+ unanswered until its timeout \(.*transport:timeout.*\)$/,
      );
  }, 130_000);
});
