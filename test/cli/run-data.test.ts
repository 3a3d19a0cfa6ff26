import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startStatefulApi, type StatefulApi } from '../support/stateful-api.ts';
import { useTempDir } from '../support/temp-dir.ts';

/**
 * Data files feeding a run, from the CLI against a server that logs every call: `unique` rows are
 * each sent once across worker threads and across shard processes, `onEnd: stop` ends the run
 * cleanly and says so, and bad data is one line before the run (exit 2).
 */
const SECRET = 'data-secret';
const ROWS = 240;
const dir = useTempDir('rpcload-data-');
const csv = join(dir, 'users.csv');
// Quoted fields with commas and a line break inside: RFC 4180, not split on every comma.
writeFileSync(
  csv,
  `id,email,note\n${Array.from({ length: ROWS }, (_, i) => `${i},user${i}@example.com,"n, ${i}${i % 50 === 0 ? '\nsecond line' : ''}"`).join('\n')}\n`,
);

const profile = (target: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'data',
  target,
  clients: { pattern: 'c-{n}', count: 6, secret: SECRET },
  data,
  scenarios: [
    {
      name: 'use',
      steps: [
        {
          method: 'rows.use',
          args: { id: '{{data.users.id}}', email: '{{data.users.email}}', note: '{{data.users.note}}' },
        },
      ],
    },
  ],
  phases: [{ duration: '20s', rate: 120 }],
  ...extra,
});

const readResult = (path: string): RunResult => JSON.parse(readFileSync(path, 'utf8')) as RunResult;

// Each test starts one to three CLI processes: allow for a busy machine.
describe('data files from the CLI', { timeout: 120_000 }, () => {
  let api: StatefulApi;
  beforeAll(async () => (api = await startStatefulApi({ secret: SECRET })));
  afterAll(() => api.close());

  /** The rows the server saw since `from`, by email. */
  const used = (from: number) =>
    api.log
      .slice(from)
      .filter((c) => c.method === 'rows.use')
      .map((c) => c.args.email as string);
  const everyRowOnce = (emails: string[]) => {
    expect(emails.length).toBe(ROWS);
    expect(new Set(emails).size).toBe(ROWS);
    expect(new Set(emails)).toEqual(new Set(Array.from({ length: ROWS }, (_, i) => `user${i}@example.com`)));
  };

  it('unique across --workers 2: every row once, then the run ends cleanly and says why (node given a V8 option)', async () => {
    const from = api.log.length;
    const path = join(dir, 'workers.json');
    writeFileSync(path, JSON.stringify(profile(api.url, { users: { file: 'users.csv', order: 'unique' } })));
    const out = join(dir, 'workers-result.json');
    // A V8 option given to node: worker threads refuse it, and the run's threads could not start.
    const run = await runRpcload(['run', path, '--workers', '2', '--ui', 'none', '--out', out], {
      nodeFlags: ['--stack-trace-limit=30'],
    });
    expect(run.code, run.stderr).toBe(0);
    everyRowOnce(used(from));
    const result = readResult(out);
    expect(result.run.status).toBe('completed');
    expect(result.summary.durationS).toBeLessThan(15); // 240 rows at 120/s: about 2 s, not the phase's 20 s
    expect(result.warnings.some((w) => w.includes('data set "users" ran out of rows (onEnd: stop)'))).toBe(true);
    // The quoted field with a comma and a line break arrived whole.
    const notes = api.log.slice(from).map((c) => c.args.note as string);
    expect(notes).toContain('n, 50\nsecond line');
  });

  it('unique across 3 shard processes: every row once in all', async () => {
    const from = api.log.length;
    const path = join(dir, 'shards.json');
    writeFileSync(path, JSON.stringify(profile(api.url, { users: { file: 'users.csv', order: 'unique' } })));
    const runs = await Promise.all(
      [1, 2, 3].map((i) =>
        runRpcload([
          'run',
          path,
          '--shard',
          `${i}/3`,
          '--run-id',
          'data-shards',
          '--ui',
          'none',
          '--out',
          join(dir, `shard-${i}.json`),
        ]),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    everyRowOnce(used(from));
  });

  it('sequential order wraps through the file; random order picks rows of it', async () => {
    for (const order of ['sequential', 'random']) {
      const from = api.log.length;
      const path = join(dir, `${order}.json`);
      writeFileSync(
        path,
        JSON.stringify(
          profile(api.url, { users: { file: 'users.csv', order } }, { phases: [{ duration: '3s', rate: 120 }] }),
        ),
      );
      const run = await runRpcload(['run', path, '--ui', 'none', '--out', join(dir, `${order}-result.json`)]);
      expect(run.code, run.stderr).toBe(0);
      const emails = used(from);
      expect(emails.length).toBeGreaterThan(ROWS); // more iterations than rows: wrapped or repeated
      for (const email of emails) expect(email).toMatch(/^user\d+@example\.com$/);
      // In file order (requests on several connections may reach the server a little out of order)
      if (order === 'sequential')
        for (const email of emails.slice(0, 10)) expect(Number(/\d+/.exec(email)![0])).toBeLessThan(20);
      else expect(new Set(emails.slice(0, 100)).size).toBeLessThan(100); // repeats among 100 picks of 240
    }
  });

  it.each<[string, string, string, string]>([
    // a ragged row
    [
      'ragged.csv',
      'id,email\n1,a@x\n2\n',
      '{{data.users.email}}',
      'line 3: expected 2 fields like the header (id, email), found 1',
    ],
    // a column the header lacks
    ['nocol.csv', 'id,mail\n1,a@x\n', '{{data.users.email}}', 'line 1: no column "email" in the header'],
    // JSON Lines: a line that is not an object, and one without the key
    ['bad.jsonl', '{"email":"a"}\n[1]\n', '{{data.users.email}}', 'line 2: expected a JSON object, found an array'],
    ['nokey.jsonl', '{"email":"a"}\n\n{"mail":"b"}\n', '{{data.users.email}}', 'line 3: no key "email"'],
    // no row at all: a header alone, an empty file, JSON Lines of blank lines (a run could only send nothing)
    ['header-only.csv', 'id,email\n', '{{data.users.email}}', 'expected at least one row, found only the header'],
    ['empty.csv', '', '{{data.users.email}}', 'expected at least one row, found an empty file'],
    ['blank.jsonl', '\n  \n', '{{data.users.email}}', 'expected at least one row, found no JSON object in the file'],
  ])('bad data in %s: one line before the run, exit 2', async (file, text, template, message) => {
    writeFileSync(join(dir, file), text);
    const path = join(dir, `bad-${file}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        ...profile(api.url, { users: { file } }),
        scenarios: [{ steps: [{ method: 'rows.use', args: { e: template } }] }],
      }),
    );
    const from = api.log.length;
    const run = await runRpcload(['run', path, '--ui', 'none', '--out', join(dir, 'never.json')]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`data set "users" (${join(dir, file)}): ${message}`);
    expect(api.log.length).toBe(from); // nothing was sent
  });

  it('a run that sends no request exits 1 and says why (a shard with no row of a unique data set)', async () => {
    writeFileSync(join(dir, 'one.csv'), 'id,email,note\n0,only@example.com,x\n');
    const path = join(dir, 'one-row.json');
    writeFileSync(
      path,
      JSON.stringify(
        profile(api.url, { users: { file: 'one.csv', order: 'unique' } }, { phases: [{ duration: '2s', rate: 5 }] }),
      ),
    );
    const from = api.log.length;
    const out = join(dir, 'nothing-sent.json');
    const run = await runRpcload([
      'run',
      path,
      '--shard',
      '2/2',
      '--run-id',
      'nothing-sent',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(api.log.slice(from).filter((c) => c.method === 'rows.use')).toEqual([]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('no request was sent: the run measured nothing');
    expect(run.stdout).toMatch(/data set "users" (ran out of rows|has no rows for this part of the run)/);
    const result = readResult(out);
    expect(result.run.status).toBe('completed');
    expect(result.summary.requests).toBe(0);
  });

  it('a data file that is not there: a profile problem naming it, exit 2', async () => {
    const path = join(dir, 'missing.json');
    writeFileSync(path, JSON.stringify(profile(api.url, { users: { file: 'gone.csv' } })));
    const run = await runRpcload(['run', path, '--ui', 'none']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `rpcload: ${path}: /data/users/file: expected a readable file (${join(dir, 'gone.csv')}: no such file), found "gone.csv"`,
    );
  });
});
