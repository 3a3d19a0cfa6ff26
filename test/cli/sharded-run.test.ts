import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startTestServer } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * One load as four shard processes started the way a Kubernetes Indexed Job starts them (the same
 * environment, a 0-based JOB_COMPLETION_INDEX each), against one reference server, then merged —
 * and the same load as one process against a fresh server, for the verdicts to compare with.
 */
const LIMIT = 20;
const profile = (target: string): Record<string, unknown> => ({
  name: 'sharded',
  target,
  // c-1 is greedy: weight 10 of 17 at 60/s is ~35/s against a quota of 20 per second.
  clients: { pattern: 'c-{n}', count: 8, secret: 'shard-secret', weights: { 'c-1': 10 } },
  scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
  phases: [{ name: 'load', duration: '3s', rate: 60 }],
  rateLimit: { limit: LIMIT, window: '1s', on429: 'honour' },
  thresholds: ['error_rate < 1%'],
});
const readResult = (path: string): RunResult => JSON.parse(readFileSync(path, 'utf8')) as RunResult;
const admittedOf = (result: RunResult, client: string): number => result.byClient[client]?.outcomes.success ?? 0;
const refusedOf = (result: RunResult, client: string): number =>
  result.byClient[client]?.outcomes['error:rate_limit_exceeded'] ?? 0;

describe('a run in four shards (Indexed-Job environment), merged', () => {
  it('merges to the shards’ sum and the server’s own counts, with the verdicts of one process, a small start spread and union thresholds', async () => {
    const dir = useTempDir('rpcload-shards-');
    const shardDir = join(dir, 'results');
    mkdirSync(shardDir);
    const server = await startTestServer({
      limit: LIMIT,
      windowMs: 1000,
      clientPattern: { prefix: 'c-', secret: 'shard-secret' },
    });
    const profilePath = join(dir, 'profile.json');
    writeFileSync(profilePath, JSON.stringify(profile(server.url)));
    // Starting four Node processes on a busy CI machine takes a few seconds: agree on an instant after that.
    const startAt = new Date(Date.now() + 8000).toISOString();
    const env = { RPCLOAD_SHARDS: '4', RPCLOAD_START_AT: startAt };
    const shards = await Promise.all(
      [0, 1, 2, 3].map((index) =>
        runRpcload(['run', profilePath, '--ui', 'none', '--out', join(shardDir, `shard-${index}.json`)], {
          env: { ...env, JOB_COMPLETION_INDEX: String(index) },
        }),
      ),
    );
    // Nothing on stderr, but for the warning of a shard that started after the agreed instant (a very busy machine).
    const lateStart =
      /^warning: the start instant \S+ \(--start-at, RPCLOAD_START_AT\) passed \d+ s ago: the run starts at once, \d+ s late$/;
    for (const shard of shards)
      expect(shard.stderr.split('\n').filter((line) => line !== '' && !lateStart.test(line))).toEqual([]);
    const files = readdirSync(shardDir).map((name) => readResult(join(shardDir, name)));
    expect(files.map((f) => f.run.shard!.index).sort()).toEqual([1, 2, 3, 4]);
    expect(new Set(files.map((f) => f.run.shard!.runId)).size).toBe(1);
    // Each client ID ran on exactly one shard.
    const clientsByShard = files.map((f) => Object.keys(f.byClient).filter((id) => f.byClient[id]!.requests > 0));
    expect(clientsByShard.flat().sort()).toEqual(['c-1', 'c-2', 'c-3', 'c-4', 'c-5', 'c-6', 'c-7', 'c-8']);

    // A threshold only the union breaks: every shard sent fewer, all of them together more.
    const total = files.reduce((sum, f) => sum + f.summary.requests, 0);
    const largest = Math.max(...files.map((f) => f.summary.requests));
    const unionProfile = join(dir, 'union.json');
    writeFileSync(unionProfile, JSON.stringify({ ...profile(server.url), thresholds: [`requests < ${largest + 1}`] }));
    const out = join(dir, 'merged.json');
    const merge = await runRpcload(['merge', shardDir, '--out', out, '--profile', unionProfile]);
    expect(merge.code, merge.stderr).toBe(1);
    expect(merge.stdout).toContain(`requests < ${largest + 1}`);
    expect(merge.stdout).toMatch(/merged 4 of 4 shards of run /);
    const merged = readResult(out);
    expect(merged.summary.requests).toBe(total);
    expect(merged.thresholds).toEqual([{ expr: `requests < ${largest + 1}`, actual: total, ok: false }]);
    expect(merged.run.shardSet).toMatchObject({ count: 4, merged: [1, 2, 3, 4], missing: [] });
    // The spread is what the shards record: shards ready in time start together at the agreed
    // instant; one that was not (a starved machine) starts at once and says how late it was.
    const lates = files.map((f) => f.run.shard!.startLateMs!);
    const starts = files.map((f) => Date.parse(f.run.startedAt));
    expect(merged.run.shardSet!.maxStartLateMs).toBe(Math.max(...lates));
    expect(merged.run.shardSet!.startSpreadMs).toBe(Math.max(...starts) - Math.min(...starts));
    for (const [i, late] of lates.entries()) {
      expect(late).toBeGreaterThanOrEqual(0);
      expect(Math.abs(starts[i]! - (Date.parse(startAt) + late))).toBeLessThan(5);
    }

    // Per client, what the merge says was admitted and refused is what the server counted.
    const stats = server.stats();
    for (const [client, counts] of Object.entries(stats.byClient)) {
      expect({ client, admitted: admittedOf(merged, client), refused: refusedOf(merged, client) }).toEqual({
        client,
        ...counts,
      });
    }
    expect(refusedOf(merged, 'c-1')).toBeGreaterThan(0);

    // The same load in one process, against a fresh server with fresh quotas.
    const fresh = await startTestServer({
      limit: LIMIT,
      windowMs: 1000,
      clientPattern: { prefix: 'c-', secret: 'shard-secret' },
    });
    const singlePath = join(dir, 'single-profile.json');
    writeFileSync(singlePath, JSON.stringify(profile(fresh.url)));
    const single = await runRpcload(['run', singlePath, '--ui', 'none', '--out', join(dir, 'single.json')]);
    expect(single.code, single.stderr).toBe(0);
    const one = readResult(join(dir, 'single.json'));
    const verdicts = (result: RunResult): Record<string, string> =>
      Object.fromEntries(result.checks.map((c) => [c.id, c.verdict]));
    expect(verdicts(merged)).toEqual(verdicts(one));
    expect(verdicts(merged)['ratelimit.threshold']).toBe('pass');
    // The greedy client, on whichever shard it ran, was first refused after exactly the limit.
    expect(admittedOf(merged, 'c-1')).toBeGreaterThanOrEqual(LIMIT);

    // A missing shard, a shard of another run, and the same shard twice: one line each, exit 2.
    const partialDir = join(dir, 'partial');
    mkdirSync(partialDir);
    for (const index of [0, 1, 3])
      copyFileSync(join(shardDir, `shard-${index}.json`), join(partialDir, `shard-${index}.json`));
    const missing = await runRpcload(['merge', partialDir, '--out', join(dir, 'm1.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^rpcload: cannot merge: shard 3 of 4 of run \S+ is missing \(have 3 of 4\); merge --partial .*\n$/,
    );
    const partial = await runRpcload(['merge', partialDir, '--out', join(dir, 'm2.json'), '--partial']);
    expect(partial.code).toBe(1);
    expect(readResult(join(dir, 'm2.json')).run.shardSet).toMatchObject({ merged: [1, 2, 4], missing: [3] });
    expect(readResult(join(dir, 'm2.json')).warnings[0]).toMatch(/^partial merge: shard 3 of 4 missing/);

    const other = readResult(join(shardDir, 'shard-2.json'));
    const otherPath = join(dir, 'other-run.json');
    writeFileSync(
      otherPath,
      JSON.stringify({ ...other, run: { ...other.run, id: 'x', shard: { ...other.run.shard!, runId: 'last-night' } } }),
    );
    const foreign = await runRpcload([
      'merge',
      join(shardDir, 'shard-0.json'),
      join(shardDir, 'shard-1.json'),
      otherPath,
      join(shardDir, 'shard-3.json'),
      '--out',
      join(dir, 'm3.json'),
    ]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(
      /^rpcload: cannot merge: other-run\.json is a shard of run last-night, but shard-0\.json is a shard of run \S+\n$/,
    );

    const twicePath = join(dir, 'again.json');
    copyFileSync(join(shardDir, 'shard-1.json'), twicePath);
    const twice = await runRpcload([
      'merge',
      join(shardDir, 'shard-0.json'),
      join(shardDir, 'shard-1.json'),
      twicePath,
      '--out',
      join(dir, 'm4.json'),
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stderr.trim().split('\n')).toHaveLength(1);
    expect(twice.stderr).toMatch(/shard-1\.json and again\.json are (both shard 2\/4|the same run)/);
  }, 90_000);

  it('refuses a shard without clients, and a sharded run without a shared run id, in one line', async () => {
    const dir = useTempDir('rpcload-shards-');
    const path = join(dir, 'p.json');
    writeFileSync(
      path,
      JSON.stringify({ ...profile('http://127.0.0.1:9'), clients: { pattern: 'c-{n}', count: 2, secret: 's' } }),
    );
    const empty = await runRpcload(['run', path, '--ui', 'none', '--shard', '3/3', '--run-id', 'r1']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(
      'rpcload: shard 3/3 has no clients: the profile has 2 client IDs, so at most 2 shards (each client runs on exactly one shard)\n',
    );
    const noId = await runRpcload(['run', path, '--ui', 'none', '--shard', '1/2']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toMatch(
      /^rpcload: a run of 2 shards needs a shared run id: pass --run-id ID .* or --start-at TIME .*\n$/,
    );
    const badShard = await runRpcload(['run', path, '--ui', 'none'], { env: { RPCLOAD_SHARD: '0/4' } });
    expect(badShard.code).toBe(2);
    expect(badShard.stderr).toBe('rpcload: RPCLOAD_SHARD: expected I/N with 1 ≤ I ≤ N, e.g. 2/4, found "0/4"\n');
  });
});
