/**
 * Fail before the run, not after it: a result path that cannot be written, a profile nested
 * 200,000 levels deep, a CA file that is no certificate, result files whose histograms were
 * swapped in from another run, a report baseline of another kind. Each is one line and exit 2,
 * before any request reaches the target; a final write that still fails lands in a fallback file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload, type CliResult } from '../support/cli.ts';
import { rawResponse, startRawServer, type TestServer } from '../support/http-server.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { useTempDir } from '../support/temp-dir.ts';

const SECRET = 'fail-early-secret-2b7d';

function expectOneLineRefusal(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at |Maximum call stack/);
  expect(result.stderr + result.stdout).not.toContain(SECRET);
}

/** A target that would answer everything: it must not see a single request when rpcload refuses up front. */
async function withTarget<T>(body: (server: TestServer) => Promise<T>): Promise<T> {
  const server = await startRawServer((request, socket) =>
    socket.write(
      request.path.endsWith('/auth.token')
        ? rawResponse(
            200,
            JSON.stringify({ access_token: 'tok-fail-early-1234', token_type: 'Bearer', expires_in: 3600 }),
          )
        : rawResponse(200, JSON.stringify({ status: 'success', data: {} })),
    ),
  );
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

function writeProfile(dir: string, target: string, extra: Record<string, unknown> = {}): string {
  const path = join(dir, 'profile.json');
  const profile = {
    name: 'early',
    target,
    clients: { list: [{ id: 'c1', secret: SECRET }] },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    phases: [{ name: 'p', duration: '1s', rate: 5 }],
    ...extra,
  };
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

// Tests here run concurrently, and global test hooks cannot tell which one is running: each makes
// its directory inside this one, which goes when the file is done.
const dir = useTempDir('rpcload-early-');
writeFileSync(join(dir, 'a-file'), 'x');

describe.concurrent('unwritable --out is refused before the load starts', () => {
  it.each([
    ['/proc/rpcload-result.json', /ENOENT|EACCES|EROFS/],
    [dir, /it is a directory/],
    ['/dev/full', /a character device, not a regular file/],
    [join(dir, 'a-file', 'result.json'), /EEXIST|ENOTDIR/],
  ])(
    '%s',
    async (out, why) => {
      await withTarget(async (server) => {
        const profile = writeProfile(mkdtempSync(join(dir, 'case-')), server.url);
        // verify goes through the same check; one case of it is enough.
        for (const command of out === '/dev/full' ? ['run', 'verify'] : ['run']) {
          const result = await runRpcload([command, profile, '--out', out, '--ui', 'none'], { timeoutMs: 90_000 });
          expectOneLineRefusal(
            result,
            new RegExp(
              `^rpcload: --out ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot write the result file there \\(`,
            ),
          );
          expect(result.stderr).toMatch(why);
        }
        if (out === '/dev/full') {
          // verify's JUnit file is checked up front too.
          const junit = await runRpcload(
            ['verify', profile, '--junit', out, '--out', join(dir, 'ok.json'), '--ui', 'none'],
            {
              timeoutMs: 90_000,
            },
          );
          expectOneLineRefusal(
            junit,
            /^rpcload: --junit \/dev\/full: cannot write the JUnit file there \(a character device, not a regular file/,
          );
        }
        expect(server.seen).toHaveLength(0); // not even a token request
      });
    },
    120_000,
  );
});

describe.concurrent('bad input files are one line, exit 2', () => {
  it('a profile nested 200,000 levels deep (run and profile validate)', async () => {
    const path = join(mkdtempSync(join(dir, 'case-')), 'deep.json');
    writeFileSync(path, `{"name":"deep","phases":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    expectOneLineRefusal(
      await runRpcload(['run', path, '--ui', 'none']),
      /deep\.json: \/phases\/0\/0\/0\/0\/0\/0\/0\/…: nested deeper than 64 levels/,
    );
    expectOneLineRefusal(
      await runRpcload(['profile', 'validate', path]),
      /deep\.json: \/phases\/0\/0.*nested deeper than 64 levels/,
    );
  }, 120_000);

  it('a CA file that holds no certificate: verify --ca, run --ca and a profile http.ca', async () => {
    await withTarget(async (server) => {
      const profile = writeProfile(mkdtempSync(join(dir, 'case-')), server.url.replace('http:', 'https:'), {
        http: { ca: '/etc/passwd' },
      });
      // A flag error in commander's usage format: the reason on the first line, the --help hint after it.
      for (const command of [
        ['verify', '--target', server.url, '--client', `c1:${SECRET}`, '--method', 'ping'],
        ['run', writeProfile(mkdtempSync(join(dir, 'case-')), server.url)],
      ]) {
        const flagged = await runRpcload([...command, '--ca', '/etc/passwd', '--ui', 'none']);
        expect(flagged.code, flagged.stderr).toBe(2);
        expect(flagged.stderr.split('\n')[0]).toMatch(/--ca <file>.* "\/etc\/passwd": not a PEM certificate/);
        expect(flagged.stderr).not.toMatch(/\n\s+at |internal error/);
      }
      const run = await runRpcload(['run', profile, '--ui', 'none']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/\/http\/ca.*"\/etc\/passwd": not a PEM certificate/);
      expect(server.seen).toHaveLength(0);
    });
  }, 120_000);

  it('compare, merge and report refuse histograms swapped in from another run, naming the file and the JSON path', async () => {
    const work = mkdtempSync(join(dir, 'case-'));
    const base = makeResult({ seed: 1, rps: 50, durationS: 10 });
    const other = makeResult({ seed: 2, rps: 20, durationS: 10, latencyMs: { median: 80, spread: 0.5 } });
    writeFileSync(join(work, 'base.json'), JSON.stringify(base));
    writeFileSync(join(work, 'swapped.json'), JSON.stringify({ ...base, histograms: other.histograms }));
    const swapped = join(work, 'swapped.json');
    const expected = /swapped\.json: \/histograms\/latency: holds \d+ values, but \/summary\/requests is \d+/;
    expectOneLineRefusal(await runRpcload(['compare', join(work, 'base.json'), swapped], { cwd: work }), expected);
    expectOneLineRefusal(
      await runRpcload(['merge', join(work, 'base.json'), swapped, '--out', join(work, 'm.json')], { cwd: work }),
      expected,
    );
    expectOneLineRefusal(await runRpcload(['report', swapped, '--out', join(work, 'r.html')], { cwd: work }), expected);
  }, 120_000);

  it('report --baseline refuses a verify file for a load run', async () => {
    const work = mkdtempSync(join(dir, 'case-'));
    writeFileSync(join(work, 'run.json'), JSON.stringify(makeResult({ seed: 1, durationS: 5 })));
    writeFileSync(join(work, 'verify.json'), JSON.stringify(makeResult({ seed: 1, durationS: 5, kind: 'verify' })));
    const result = await runRpcload([
      'report',
      join(work, 'run.json'),
      '--baseline',
      join(work, 'verify.json'),
      '--out',
      join(work, 'r.html'),
    ]);
    expectOneLineRefusal(result, /verify\.json: \/run\/kind: expected "run" like .*run\.json, found "verify"/);
  }, 120_000);
});

describe('a final write that still fails', () => {
  it('lands in a fallback file in the temp directory, and says where', async () => {
    const work = mkdtempSync(join(dir, 'case-'));
    const out = join(work, 'gone', 'result.json');
    const result = await runRpcload(
      ['run', 'profiles/smoke.json', '--duration', '4s', '--rate', '5', '--out', out, '--ui', 'plain'],
      {
        timeoutMs: 90_000,
        onSpawn: (child) => {
          // Once the load runs (the first progress line), the directory the up-front check created
          // turns into a file: the final write fails.
          child.stderr!.once('data', () => {
            rmSync(join(work, 'gone'), { recursive: true, force: true });
            writeFileSync(join(work, 'gone'), 'not a directory');
          });
        },
      },
    );
    // Not where it was asked for: the run says so with its exit code, so a CI step cannot miss it.
    expect(result.code, result.stderr).toBe(1);
    const warning =
      /^warning: .*gone\/result\.json: cannot write the result file: \w+; wrote it to (\S+) instead$/m.exec(
        result.stderr,
      );
    expect(warning, result.stderr).not.toBeNull();
    const fallback = warning![1]!;
    expect(fallback.startsWith(tmpdir())).toBe(true);
    expect(result.stdout).toContain(`result file: ${fallback}`);
    expect((await readResultFile(fallback)).run.status).toBe('completed');
    rmSync(fallback);
  }, 120_000);
});
