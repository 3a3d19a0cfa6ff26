/**
 * Input that can only go wrong is refused up front, in one line, exit 2, without echoing a
 * credential (issue 28 §6, §16, §24): a target URL with user:password@ in it, CR/LF or other
 * control characters in a target or a method name, a method name that is no URL path segment
 * (`../../../etc/passwd`), a duration of 11,000 years — and, at the token step, an access token a
 * server issued with a control character in it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resolvePlan } from '../../src/profile/build-plan.ts';
import { runRpcload, type CliResult } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import { issueToken, startHostileApi, answerSuccess } from '../support/stalling-api.ts';

const PASSWORD = 'url-pass-7c1e9';
const SECRET = 'refusal-secret-40d2';

const dir = mkdtempSync(join(tmpdir(), 'rpcload-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(result.stderr + result.stdout).not.toContain(PASSWORD);
  expect(result.stderr + result.stdout).not.toContain(SECRET);
}

let profiles = 0;
function writeProfile(fields: Record<string, unknown>): string {
  const path = join(dir, `profile-${++profiles}.json`);
  const profile = {
    name: 'refusal',
    clients: { list: [{ id: 'c1', secret: SECRET }] },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    phases: [{ name: 'p', duration: '1s', rate: 2 }],
    ...fields,
  };
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

/** Problems of a profile, validated in process. */
function problemsOf(fields: Record<string, unknown>): string[] {
  const profile = {
    clients: { list: [{ id: 'c1', secret: SECRET }] },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    phases: [{ duration: '1s', rate: 2 }],
    ...fields,
  };
  return resolvePlan(profile, { source: 'p.json' }).problems.map((p) => `${p.path}: ${p.message}`);
}

describe('a target URL with credentials in it is refused, and the password is never printed', () => {
  it('profile target, run --target, verify --target', async () => {
    server = await startHostileApi(answerSuccess);
    const withCredentials = server.url.replace('http://', `http://user:${PASSWORD}@`);
    const why = /credentials.*never sent/;
    expectOneLineRefusal(await runRpcload(['run', writeProfile({ target: withCredentials }), '--ui', 'none']), why);
    expectOneLineRefusal(await runRpcload(['run', writeProfile({}), '--target', withCredentials, '--ui', 'none']), why);
    expectOneLineRefusal(
      await runRpcload([
        'verify',
        '--target',
        withCredentials,
        '--client',
        `c1:${SECRET}`,
        '--method',
        'ping',
        '--ui',
        'none',
      ]),
      why,
    );
    // Replicas are target URLs too.
    expectOneLineRefusal(
      await runRpcload(['run', writeProfile({ target: server.url }), '--replica', withCredentials, '--ui', 'none']),
      /^rpcload: --replica: expected a URL without user:password@/,
    );
    expect(problemsOf({ target: server.url, replicas: [withCredentials] })).toEqual([
      expect.stringMatching(/^\/replicas\/0: .*credentials/),
    ]);
    expect(server.seen).toHaveLength(0);
  }, 60_000);

  it('an unparsable URL with credentials is not echoed either', () => {
    const problems = problemsOf({ target: `http://user:${PASSWORD}@host:notaport` });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain(PASSWORD);
  });
});

describe('control characters are refused where they would break every request', () => {
  it.each([
    ['a CR/LF after the target', { target: 'http://127.0.0.1:9/\r\n' }, /^\/target: expected .*control character/],
    ['a tab in the target', { target: 'http://127.0.0.1:9/a\tb' }, /^\/target: expected .*control character/],
    [
      'a CR/LF in a method name',
      { scenarios: [{ name: 'p', steps: [{ method: 'ping\r\nX-Injected: 1' }] }] },
      /^\/scenarios\/0\/steps\/0\/method: expected a method name/,
    ],
    [
      'a CR/LF in the token method',
      { auth: { tokenMethod: 'auth.token\r\n' } },
      /^\/auth\/tokenMethod: expected a method name/,
    ],
  ])('%s', (_name, fields, pattern) => {
    expect(problemsOf(fields)).toEqual([expect.stringMatching(pattern)]);
  });

  it('run --target and verify --method, as flags: one line, exit 2', async () => {
    expectOneLineRefusal(
      await runRpcload(['run', writeProfile({}), '--target', 'http://127.0.0.1:9/\r\n', '--ui', 'none']),
      /--target.*control character/,
    );
    expectOneLineRefusal(
      await runRpcload([
        'verify',
        '--target',
        'http://127.0.0.1:9',
        '--client',
        `c1:${SECRET}`,
        '--method',
        'ping\r\n',
        '--ui',
        'none',
      ]),
      /--method.*expected a method name/,
    );
  }, 60_000);

  it('an access token with CR/LF in it is refused at the token step: run and verify end in one line, exit 2', async () => {
    server = await startHostileApi(answerSuccess, issueToken({ access_token: 'tok\r\nX-Injected: 1' }));
    const why = /access_token .*control character/;
    expectOneLineRefusal(await runRpcload(['run', writeProfile({ target: server.url }), '--ui', 'none']), why);
    expectOneLineRefusal(
      await runRpcload([
        'verify',
        '--target',
        server.url,
        '--client',
        `c1:${SECRET}`,
        '--method',
        'ping',
        '--ui',
        'none',
      ]),
      why,
    );
    expect(server.seen.filter((r) => !r.url.endsWith('/auth.token'))).toHaveLength(0);
  }, 60_000);
});

describe('profile validate bounds durations and method names', () => {
  it.each([
    [
      'a phase of 99999999h',
      { phases: [{ duration: '99999999h', rate: 1 }] },
      /^\/phases\/0\/duration: expected a duration of at most 7 days/,
    ],
    [
      'a think time of 30 days',
      { scenarios: [{ steps: [{ method: 'ping', think: '720h' }] }] },
      /^\/scenarios\/0\/steps\/0\/think: expected a duration of at most 7 days/,
    ],
    [
      'a method ../../../etc/passwd',
      { scenarios: [{ steps: [{ method: '../../../etc/passwd' }] }] },
      /^\/scenarios\/0\/steps\/0\/method: expected a method name .*found "\.\.\/\.\.\/\.\.\/etc\/passwd"/,
    ],
    ['a method with a space', { scenarios: [{ steps: [{ method: 'items list' }] }] }, /expected a method name/],
    ['a method "."', { scenarios: [{ steps: [{ method: '..' }] }] }, /expected a method name/],
  ])('%s', (_name, fields, pattern) => {
    expect(problemsOf(fields)).toEqual([expect.stringMatching(pattern)]);
  });

  it('accepts the names the conventions use, and a week-long phase', () => {
    expect(
      problemsOf({
        scenarios: [
          { steps: [{ method: 'items.list' }, { method: 'user_profile-get' }, { method: 'v2.Orders~create' }] },
        ],
        phases: [{ duration: '168h', rate: 1 }],
      }),
    ).toEqual([]);
  });

  it('the CLI: one line per problem, exit 2, and run --duration is bounded too', async () => {
    const path = writeProfile({
      phases: [{ duration: '99999999h', rate: 1 }],
      scenarios: [{ steps: [{ method: '../../../etc/passwd' }] }],
    });
    const validated = await runRpcload(['profile', 'validate', path]);
    expect(validated.code).toBe(2);
    expect(validated.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/\/scenarios\/0\/steps\/0\/method: expected a method name/),
      expect.stringMatching(/\/phases\/0\/duration: expected a duration of at most 7 days/),
    ]);
    const flagged = await runRpcload(['run', writeProfile({}), '--duration', '99999999h', '--ui', 'none']);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr.split('\n')[0]).toMatch(/--duration.*at most 7 days/);
  }, 60_000);
});
