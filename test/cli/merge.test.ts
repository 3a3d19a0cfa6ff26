import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { buildResult, fixtureSamples, schemaProblems } from '../support/result-fixtures.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** `rpcload merge` over files: two shards of one run, split by client. */
describe('rpcload merge', () => {
  const dir = useTempDir('rpcload-merge-');
  const options = { seed: 8, durationS: 20, clients: 6 };
  const samples = fixtureSamples(options);
  const shard = (clients: string[], runId: string, thresholds: RunResult['thresholds'] = []) =>
    buildResult(
      samples.filter((s) => clients.includes(s.client)),
      { ...options, clientIds: clients, runId, thresholds },
    );
  const whole = buildResult(samples, options);
  const merge = (...args: string[]) => runRpcload(['merge', ...args], { cwd: dir });

  beforeAll(async () => {
    const threshold = [{ expr: `requests < ${whole.summary.requests - 1}`, actual: 0, ok: true }];
    await writeFile(join(dir, 'a.json'), JSON.stringify(shard(['client-1', 'client-2', 'client-3'], 'a')));
    await writeFile(join(dir, 'b.json'), JSON.stringify(shard(['client-4', 'client-5', 'client-6'], 'b')));
    await writeFile(
      join(dir, 'a-limit.json'),
      JSON.stringify(shard(['client-1', 'client-2', 'client-3'], 'a2', threshold)),
    );
    await writeFile(
      join(dir, 'b-limit.json'),
      JSON.stringify(shard(['client-4', 'client-5', 'client-6'], 'b2', threshold)),
    );
  });

  it('writes one valid result file with the totals and percentiles of the whole run', async () => {
    const result = await merge('a.json', 'b.json', '--out', 'merged.json');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // The same summary as `run`, then what was merged where.
    expect(result.stdout).toMatch(new RegExp(`\\nrequests\\s+${whole.summary.requests.toLocaleString('en-US')} `));
    expect(result.stdout).toMatch(/\nmerged 2 files → merged\.json\n$/);
    const merged = JSON.parse(await readFile(join(dir, 'merged.json'), 'utf8')) as RunResult;
    expect(schemaProblems(merged)).toEqual([]);
    expect(merged.summary.latencyMs).toEqual(whole.summary.latencyMs);
    expect(merged.summary.outcomes).toEqual(whole.summary.outcomes);
    // A merged file is an input like any other: compare and report read it.
    expect((await runRpcload(['compare', 'merged.json', 'merged.json'], { cwd: dir })).code).toBe(0);
  });

  it('exits 1 when a threshold fails on the merged totals', async () => {
    // Each shard passes "requests < total − 1"; together they do not.
    const result = await merge('a-limit.json', 'b-limit.json', '--out', 'limit.json');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(`✗ requests < ${whole.summary.requests - 1}\\s+\\(actual ${whole.summary.requests}\\)`),
    );
  });

  it.each([
    // one file
    [['a.json', '--out', 'x.json'], /^rpcload: merge: expected at least two result files, found 1\n$/],
    // the same file twice
    [['a.json', 'a.json', '--out', 'x.json'], /are the same run \(run\.id a\)/],
    // no --out
    [['a.json', 'b.json'], /required option '--out <file>' not specified/],
    // unreadable
    [['a.json', 'nope.json', '--out', 'x.json'], /^rpcload: nope\.json: cannot read the result file: no such file/],
  ])('exits 2 for %j', async (args, message) => {
    const result = await merge(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
