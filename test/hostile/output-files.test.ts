/**
 * Output files are checked before anything runs. Two outputs that are one file (`--junit` equal to
 * `--out`, `--out-samples` equal to `--out`), or an output that is an input (`--out` equal to the
 * profile, a report over its result file, a merge over one of its shards), are refused with one
 * line and exit 2 — compared by identity, so another spelling or a symbolic link is caught too. A
 * FIFO (or another file that is not a regular one, /dev/null excepted) as `--out`, `--out-samples`
 * or `--junit` is refused up front instead of blocking forever in its open.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRpcload, type CliResult } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { answerSuccess, startHostileApi } from '../support/stalling-api.ts';

const dir = mkdtempSync(join(tmpdir(), 'rpcload-outputs-'));
let server: TestServer;
let profile: string;
let profileText: string;
const resultPath = join(dir, 'a.json');
const resultText = JSON.stringify(makeResult({ seed: 5, rps: 20, durationS: 10 }));
beforeAll(async () => {
  writeFileSync(resultPath, resultText);
  server = await startHostileApi(answerSuccess);
  profile = join(dir, 'profile.json');
  profileText = JSON.stringify({
    name: 'outputs',
    target: server.url,
    clients: { list: [{ id: 'c1', secret: 'outputs-secret' }] },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    phases: [{ name: 'p', duration: '1s', rate: 5 }],
  });
  writeFileSync(profile, profileText);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
}

describe('one file as two outputs, or as an output and an input, is refused before the run', () => {
  it('--out equal to the profile (another spelling): the profile is left as it was', async () => {
    const before = server.seen.length;
    const spelled = `./${relative(process.cwd(), profile)}`;
    const result = await runRpcload(['run', profile, '--out', spelled, '--ui', 'none']);
    expectOneLineRefusal(
      result,
      /^rpcload: --out \S+profile\.json: the same file as the profile \(\S+profile\.json\), which is read/,
    );
    expect(readFileSync(profile, 'utf8')).toBe(profileText);
    expect(server.seen.length).toBe(before); // not even a token request
  }, 90_000);

  it('--junit equal to --out, through a symbolic link', async () => {
    const out = join(dir, 'result.json');
    symlinkSync(out, join(dir, 'link.json'));
    writeFileSync(out, '{}');
    const result = await runRpcload(['run', profile, '--out', out, '--junit', join(dir, 'link.json'), '--ui', 'none']);
    expectOneLineRefusal(
      result,
      /^rpcload: --junit \S+link\.json: the same file as --out \(\S+result\.json\); each output needs a file of its own$/,
    );
  }, 90_000);

  it('--out-samples equal to --out (a file that does not exist yet)', async () => {
    const out = join(dir, 'new.json');
    const result = await runRpcload([
      'run',
      profile,
      '--out',
      out,
      '--out-samples',
      join(dir, '.', 'new.json'),
      '--ui',
      'none',
    ]);
    expectOneLineRefusal(result, /^rpcload: --out-samples \S+new\.json: the same file as --out/);
  }, 90_000);

  it('verify and capacity: --junit equal to the profile', async () => {
    for (const command of ['verify', 'capacity']) {
      const result = await runRpcload([command, profile, '--junit', profile, '--ui', 'none']);
      expectOneLineRefusal(result, /^rpcload: --junit \S+profile\.json: the same file as the profile/);
    }
    expect(readFileSync(profile, 'utf8')).toBe(profileText);
  }, 90_000);

  it('a report over its result file, a merge over one of its inputs', async () => {
    expectOneLineRefusal(
      await runRpcload(['report', resultPath, '--out', resultPath]),
      /^rpcload: --out \S+a\.json: the same file as the result file/,
    );
    expectOneLineRefusal(
      await runRpcload(['merge', resultPath, join(dir, 'b.json'), '--out', resultPath]),
      /^rpcload: --out \S+a\.json: the same file as the input \(\S+a\.json\)/,
    );
    expect(readFileSync(resultPath, 'utf8')).toBe(resultText);
  }, 90_000);
});

describe('the default result path is checked up front too (no --out)', () => {
  // A regular file named `results` where the default results/ directory would go.
  const cwd = join(dir, 'no-results-dir');
  beforeAll(() => {
    execFileSync('mkdir', ['-p', cwd]);
    writeFileSync(join(cwd, 'results'), 'not a directory');
  });

  it.each(['run', 'capacity', 'verify'])(
    '%s: refused in one line before anything is sent',
    async (command) => {
      const before = server.seen.length;
      const result = await runRpcload([command, profile, '--ui', 'none'], { cwd, timeoutMs: 60_000 });
      expectOneLineRefusal(
        result,
        /^rpcload: --out results\/\S+\.json: cannot write the result file there \((EEXIST|ENOTDIR)\)$/,
      );
      expect(server.seen.length).toBe(before);
    },
    90_000,
  );
});

describe('an output that is not a regular file is refused up front, never opened', () => {
  const fifo = join(dir, 'fifo');
  beforeAll(() => execFileSync('mkfifo', [fifo]));

  // Before: each of these blocked forever in a synchronous open or write (no reader on the FIFO).
  it.each([
    ['run', '--out', 'the result file'],
    ['run', '--out-samples', 'the samples file'],
    ['run', '--junit', 'the JUnit file'],
    ['verify', '--junit', 'the JUnit file'],
    ['capacity', '--out', 'the result file'],
    ['report', '--out', 'the report'],
  ])(
    '%s %s FIFO',
    async (command, flag, what) => {
      const before = server.seen.length;
      const args =
        command === 'report' ? ['report', resultPath, flag, fifo] : [command, profile, flag, fifo, '--ui', 'none'];
      const result = await runRpcload(args, { timeoutMs: 60_000 });
      expectOneLineRefusal(
        result,
        new RegExp(
          `^rpcload: ${flag} \\S+fifo: cannot write ${what} there \\(a FIFO, not a regular file: writing to it can block; give a file or /dev/null\\)$`,
        ),
      );
      expect(server.seen.length).toBe(before);
    },
    90_000,
  );

  it('/dev/null is still fine as an output, several times over', async () => {
    const result = await runRpcload([
      'run',
      profile,
      '--out',
      '/dev/null',
      '--junit',
      '/dev/null',
      '--out-samples',
      '/dev/null',
      '--ui',
      'none',
    ]);
    expect(result.code, result.stderr).toBe(0);
  }, 90_000);
});
