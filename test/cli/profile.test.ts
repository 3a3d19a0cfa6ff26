import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

// Spawns the built CLI: run `npm run build` first.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = useTempDir('rpcload-cli-');
const STACK_LINE = /\n\s+at /;

describe('rpcload profile validate', () => {
  it('prints a one-line summary and exits 0 for a good profile', async () => {
    const result = await runRpcload(['profile', 'validate', 'profiles/demo.json'], { cwd: ROOT });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('profiles/demo.json: ok — 5 scenarios, 2 phases, 24 clients, total duration 30s\n');
    expect(result.code).toBe(0);
  });

  it('prints every problem, one per line on stderr, and exits 2', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        target: 'https://api.example.com',
        clients: { list: [{ id: 'a', secret: '${CLI_TEST_SECRET}' }] },
        scenarios: [{ steps: [{ method: 'echo', args: { n: '{{int 9 1}}' } }] }],
        phases: [{ duration: '5s', rate: 1, concurrency: 1 }],
        thresholds: ['p99 < 5kb'],
      }),
    );
    const result = await runRpcload(['profile', 'validate', file], {
      cwd: ROOT,
      env: { CLI_TEST_SECRET: 'top-secret-value' },
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `${file}: /scenarios/0/steps/0/args/n: expected {{int MIN MAX}} with integers MIN ≤ MAX, found "{{int 9 1}}"`,
      `${file}: /phases/0: expected exactly one of "rate" (arrivals per second) and "concurrency" (virtual users), found both`,
      `${file}: /thresholds/0: expected ms or s after the value of p99, found "kb"`,
    ]);
    expect(result.stderr).not.toContain('top-secret-value');
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it.each([
    // a missing file
    ['missing.json', null, /^.*missing\.json: cannot read the profile \(no such file\)\n$/],
    // a JSON syntax error, with line and column
    [
      'syntax.json',
      '{\n  "phases": [\n    { "duration": "1s" "rate": 1 }\n  ]\n}',
      /^.*syntax\.json: line 3, column 24: expected ',' or '}'.*\n$/,
    ],
    // a missing environment variable, named with its path
    [
      'env.json',
      '{ "target": "${CLI_TEST_UNSET_VAR}", "scenarios": [{ "steps": [{ "method": "ping" }] }], "phases": [{ "duration": "1s", "rate": 1 }] }',
      /\/target: expected environment variable CLI_TEST_UNSET_VAR to be set/,
    ],
  ])('%s: one line on stderr, exit 2, no stack trace', async (name, content, message) => {
    const file = join(dir, name);
    if (content !== null) writeFileSync(file, content);
    const result = await runRpcload(['profile', 'validate', file], { cwd: ROOT });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(STACK_LINE);
  });

  it('checks what run checks before any load: data files read through, a replay scanned (and described)', async () => {
    const write = (name: string, text: string): string => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const profile = (name: string, fields: Record<string, unknown>): string =>
      write(
        name,
        JSON.stringify({
          clients: { pattern: 'app-{n}', count: 3, secret: 'x' },
          scenarios: [{ name: 'use', steps: [{ method: 'rows.use', args: { email: '{{data.users.email}}' } }] }],
          phases: [{ duration: '5s', rate: 1 }],
          ...fields,
        }),
      );
    const ragged = write('ragged.csv', 'id,email\n1,a@x\n2\n');
    const headerOnly = write('header-only.csv', 'id,email\n');
    const cases: [string, string][] = [
      [
        profile('ragged.json', { data: { users: { file: 'ragged.csv' } } }),
        `data set "users" (${ragged}): line 3: expected 2 fields`,
      ],
      [
        profile('no-rows.json', { data: { users: { file: 'header-only.csv' } } }),
        `data set "users" (${headerOnly}): expected at least one row`,
      ],
      [profile('gone.json', { scenarios: undefined, phases: undefined, replay: { file: 'gone.jsonl' } }), 'gone.jsonl'],
    ];
    // One process for the three: each is one line on stderr, in order.
    const result = await runRpcload(['profile', 'validate', ...cases.map(([file]) => file)]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(cases.length);
    cases.forEach(([, message], i) => expect(lines[i]).toContain(message));
    const replay = await runRpcload(['profile', 'validate', 'examples/replay/checkout-profile.json'], {
      cwd: ROOT,
      env: { SECRET: 'x' },
    });
    expect(replay.stderr).toBe('');
    expect(replay.stdout).toBe(
      'examples/replay/checkout-profile.json: ok — replays checkout.jsonl (jsonl, 60 calls), 3 callers sent by 3 clients, speed 1×, total duration 2.9s\n',
    );
  });

  it('validates several files, exiting 2 when any fails', async () => {
    const result = await runRpcload(['profile', 'validate', 'profiles/smoke.json', join(dir, 'nope.json')], {
      cwd: ROOT,
    });
    expect(result.stdout).toMatch(/^profiles\/smoke\.json: ok — 3 scenarios, 1 phase, 3 clients, total duration 5s\n$/);
    expect(result.stderr).toMatch(/nope\.json: cannot read the profile/);
    expect(result.code).toBe(2);
  });
});

describe('rpcload profile schema', () => {
  it('prints the JSON Schema, identical to schemas/profile.schema.json', async () => {
    const result = await runRpcload(['profile', 'schema'], { cwd: ROOT });
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as { $id: string; properties: Record<string, unknown> };
    expect(printed).toEqual(JSON.parse(readFileSync(join(ROOT, 'schemas/profile.schema.json'), 'utf8')));
    expect(Object.keys(printed.properties)).toEqual(
      expect.arrayContaining(['target', 'clients', 'scenarios', 'phases', 'thresholds']),
    );
  });
});
