import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startStatefulApi, type StatefulApi } from '../support/stateful-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * A run split into three shards whose profile has setup and teardown, run the way a CI matrix
 * runs it: `rpcload setup` once, three `run --shard I/3 --setup-values` processes at once,
 * `rpcload merge`, `rpcload teardown` once — against an API that logs every call, so the test
 * sees what the target saw: one fixture created, used by every load call, deleted once.
 */
const SECRET = 'sharded-setup-secret';
const dir = useTempDir('rpcload-sharded-setup-');

const profileFor = (target: string, setupSteps?: unknown[]): Record<string, unknown> => ({
  name: 'fixture-shards',
  target,
  clients: { pattern: 'c-{n}', count: 6, secret: '${SECRET}' },
  scenarios: [
    { name: 'ping', weight: 2, steps: [{ method: 'ping', args: { fixture: '{{setup.fixtureId}}' } }] },
    { name: 'note', steps: [{ method: 'notes.add', args: { order: '{{setup.fixtureId}}', text: 'seen' } }] },
  ],
  setup: {
    client: 'admin-1',
    steps: setupSteps ?? [{ method: 'orders.create', args: { item: 'fixture' }, save: { fixtureId: 'id' } }],
  },
  teardown: { client: 'admin-1', steps: [{ method: 'orders.delete', args: { id: '{{setup.fixtureId}}' } }] },
  phases: [{ name: 'load', duration: '2s', rate: 30 }],
  thresholds: ['error_rate < 1%'],
});
const env = { SECRET };
const writeJson = (name: string, value: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

let api: StatefulApi;
/** A port nothing listens on: a server's, closed again. */
let closedPort = 0;
beforeAll(async () => {
  api = await startStatefulApi({ secret: SECRET });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => api.close());

describe('setup, run --setup-values and teardown across 3 shards', () => {
  it('creates the fixture once, every load call carries it, the merge has the three shards, teardown deletes it once', async () => {
    const profile = writeJson('profile.json', profileFor(api.url));
    const values = join(dir, 'values.json');

    // A shard without the values would run setup itself: refused before any request.
    const refused = await runRpcload(['run', profile, '--shard', '1/3', '--run-id', 'refused', '--ui', 'none'], {
      env,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'rpcload: --shard: the profile has a setup section, which every shard would run: run `rpcload setup PROFILE --out values.json` once, then each shard with --setup-values values.json (and `rpcload teardown` after)\n',
    );
    expect(api.log).toEqual([]);

    const setup = await runRpcload(['setup', profile, '--out', values], { env });
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toBe(`setup ok: 1 request by admin-1 (success 1)\nsetup values: ${values} (fixtureId)\n`);
    const fixtureId = (JSON.parse(readFileSync(values, 'utf8')) as { values: { fixtureId: string } }).values.fixtureId;
    expect(api.creators.get(fixtureId)).toBe('admin-1');

    // The three shards at once, on one start instant, as matrix jobs would run them.
    const shardDir = join(dir, 'shards');
    mkdirSync(shardDir);
    const startAt = new Date(Date.now() + 6000).toISOString();
    const shardArgs = (i: number): string[] => [
      'run',
      profile,
      '--shard',
      `${i}/3`,
      '--run-id',
      'fixture-run',
      '--start-at',
      startAt,
      '--setup-values',
      values,
      '--ui',
      'none',
    ];
    const shards = await Promise.all(
      [1, 2, 3].map((i) => runRpcload([...shardArgs(i), '--out', join(shardDir, `s-${i}.json`)], { env })),
    );
    for (const shard of shards) expect(shard.code, shard.stderr).toBe(0);

    const mergedPath = join(dir, 'merged.json');
    const merge = await runRpcload(
      ['merge', shardDir, '--run-id', 'fixture-run', '--profile', profile, '--out', mergedPath],
      { env },
    );
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toContain('merged 3 of 3 shards of run fixture-run');
    const merged = JSON.parse(readFileSync(mergedPath, 'utf8')) as RunResult;
    expect(merged.run.shardSet).toMatchObject({ runId: 'fixture-run', count: 3, merged: [1, 2, 3], missing: [] });

    const teardown = await runRpcload(['teardown', profile, '--setup-values', values], { env });
    expect(teardown.code, teardown.stderr).toBe(0);
    expect(teardown.stdout).toBe('teardown ok: 1 request by admin-1 (success 1)\n');

    // What the server saw: one create and one delete, by the setup's client, around the whole load.
    const creates = api.log.filter((call) => call.method === 'orders.create');
    const deletes = api.log.filter((call) => call.method === 'orders.delete');
    expect(creates).toEqual([expect.objectContaining({ client: 'admin-1', outcome: 'success' })]);
    expect(deletes).toEqual([
      expect.objectContaining({ client: 'admin-1', args: { id: fixtureId }, outcome: 'success' }),
    ]);
    const load = api.log.filter((call) => call !== creates[0] && call !== deletes[0]);
    expect(load.length).toBe(merged.summary.requests);
    expect(load.length).toBeGreaterThan(30);
    // Every load call carried the fixture, from every shard's clients, between the create and the delete.
    for (const call of load) expect(call.method === 'ping' ? call.args.fixture : call.args.order).toBe(fixtureId);
    expect(new Set(load.map((call) => call.method))).toEqual(new Set(['ping', 'notes.add']));
    expect(new Set(load.map((call) => call.client))).toEqual(new Set(['c-1', 'c-2', 'c-3', 'c-4', 'c-5', 'c-6']));
    expect(Math.min(...load.map((call) => call.atMs))).toBeGreaterThan(creates[0]!.atMs);
    expect(Math.max(...load.map((call) => call.atMs))).toBeLessThan(deletes[0]!.atMs);
  }, 60_000);

  // The target's answer (one not_found) and no target at all (the token request is refused).
  it.each([
    ['answers the setup step with an error', 'error'],
    ['is down (nothing listens)', 'down'],
  ] as const)('setup against a server that %s: exit 1, no values file, one line saying why', async (_, kind) => {
    const target = kind === 'error' ? api.url : `http://127.0.0.1:${closedPort}`;
    const steps = [{ method: 'orders.get', args: { id: 'o-never-created' }, save: { fixtureId: 'id' } }];
    const profile = writeJson(`failing-${kind}.json`, profileFor(target, steps));
    const out = join(dir, `failing-${kind}-values.json`);
    const setup = await runRpcload(['setup', profile, '--out', out], { env });
    expect(setup.code).toBe(1);
    expect(setup.stdout).toBe(
      kind === 'error'
        ? 'setup failed: 1 request by admin-1 (error:not_found 1): a step ended error:not_found\n'
        : `setup failed: 0 requests by admin-1: no client could obtain a token from ${target}: client admin-1: token request failed: transport:ECONNREFUSED\n`,
    );
    expect(setup.stderr).toBe('');
    expect(existsSync(out)).toBe(false);
  });

  it("teardown with a values file missing a value the profile's setup saves: one line, exit 2, no request", async () => {
    const profile = writeJson('missing-value.json', profileFor(api.url));
    const values = writeJson('missing-value-values.json', {
      schema: 'rpcload/setup-values@1',
      profile: 'fixture-shards',
      values: {},
    });
    const calls = api.log.length;
    const teardown = await runRpcload(['teardown', profile, '--setup-values', values], { env });
    expect(teardown.code).toBe(2);
    expect(teardown.stderr).toBe(
      `rpcload: --setup-values: ${values}: expected a value for {{setup.fixtureId}} (what the profile's setup saves)\n`,
    );
    expect(teardown.stdout).toBe('');
    expect(api.log.length).toBe(calls);
  });
});
