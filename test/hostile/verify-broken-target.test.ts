/**
 * verify against a target that is broken once the token is issued: garbage instead of HTTP, resets,
 * 200 KB headers, never answering. A verify that could not judge anything is not a pass: exit 1,
 * skips classed `target_broken`, JUnit errors (not green), a valid result file, bounded time.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import { rawResponse, startRawServer, type RawRequest, type TestServer } from '../support/http-server.ts';
import { useTempDir } from '../support/temp-dir.ts';

const SECRET = 'hostile-secret-4f9c';
const TOKEN = 'hostile-token-8d2e';

const tokenReply = rawResponse(
  200,
  JSON.stringify({ status: 'success', data: { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 } }),
);

const BROKEN: Record<string, (socket: Socket) => void> = {
  garbage: (socket) => socket.end('HELLO THIS IS NOT HTTP\r\n\r\n'),
  reset: (socket) => socket.resetAndDestroy(),
  'huge headers': (socket) =>
    socket.end(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(200_000)}\r\ncontent-length: 2\r\n\r\n{}`),
  'never answering': () => undefined,
};

/** Run `body` against a target that issues tokens and then breaks every API call with `behaviour`. */
async function withBrokenTarget<T>(
  behaviour: (socket: Socket) => void,
  body: (server: TestServer) => Promise<T>,
): Promise<T> {
  const server = await startRawServer((request: RawRequest, socket) => {
    if (request.path.endsWith('/auth.token')) socket.write(tokenReply);
    else behaviour(socket);
  });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

/** A profile naming the target, two clients and short timeouts (so "never answering" ends quickly). */
function profileFor(dir: string, target: string): string {
  const path = join(dir, 'broken.json');
  const profile = {
    name: 'broken',
    target,
    clients: {
      list: [
        { id: 'c1', secret: SECRET },
        { id: 'c2', secret: SECRET },
      ],
    },
    scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
    phases: [{ name: 'p', duration: '1s', rate: 1 }],
    rateLimit: { limit: 5, window: '1s' },
    http: { headersTimeout: '300ms', bodyTimeout: '300ms', requestTimeout: '500ms' },
  };
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

function noSecretIn(...texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(TOKEN);
  }
}

// Each case is a child process mostly waiting on timeouts: run them side by side.
// Tests here run concurrently, and global test hooks cannot tell which one is running: each makes
// its directory inside this one, which goes when the file is done.
const root = useTempDir('rpcload-broken-');

// One more try: five CLI processes start here at once, and on a starved machine one of them read
// its token request, answered at once by the server, past the profile's 300 ms headers timeout
// (CI: "cannot reach …: timeout", exit 2). A verify that breaks fails both tries.
describe.concurrent('verify against a broken target', { retry: 1 }, () => {
  it.each(Object.keys(BROKEN))(
    '%s → exit 1, target_broken skips, JUnit errors, a valid result file',
    async (name) => {
      await withBrokenTarget(BROKEN[name]!, async (server) => {
        const dir = mkdtempSync(join(root, 'case-'));
        const out = join(dir, 'out.json');
        const junit = join(dir, 'junit.xml');
        const started = Date.now();
        const result = await runRpcload(
          ['verify', profileFor(dir, server.url), '--out', out, '--junit', junit, '--ui', 'none'],
          {
            timeoutMs: 90_000,
          },
        );
        expect(Date.now() - started).toBeLessThan(90_000);
        expect(result.code, result.stderr).toBe(1);
        const verdictLines = result.stderr.split('\n').filter((l) => l.startsWith('verify: '));
        expect(verdictLines).toHaveLength(1);
        expect(verdictLines[0]).toMatch(
          /^verify: not a pass: \d+ check\(s\) could not run because the target broke \(envelope, /,
        );
        expect(result.stdout).toContain('[target_broken]');
        expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace

        const file = await readResultFile(out);
        const skipped = file.checks.filter((c) => c.verdict === 'skip');
        expect(file.checks.some((c) => c.verdict === 'pass')).toBe(false);
        for (const check of skipped) expect(check.skipClass, check.id).toMatch(/^(target_broken|not_applicable)$/);
        expect(file.checks.find((c) => c.id === 'envelope')?.skipClass).toBe('target_broken');

        const xml = readFileSync(junit, 'utf8');
        const broken = file.checks.filter((c) => c.skipClass === 'target_broken');
        expect(xml).toContain(`errors="${broken.length}"`);
        expect(xml).toContain(
          `<error message="${file.checks.find((c) => c.id === 'envelope')!.detail}" type="skip:target_broken">`,
        );
        noSecretIn(result.stdout, result.stderr, readFileSync(out, 'utf8'), xml);
      });
    },
    120_000,
  );

  it('--allow-skip target_broken accepts those skips (exit 0), and JUnit shows them as skipped', async () => {
    await withBrokenTarget(BROKEN.garbage!, async (server) => {
      const dir = mkdtempSync(join(root, 'case-'));
      const junit = join(dir, 'junit.xml');
      const result = await runRpcload(
        [
          'verify',
          profileFor(dir, server.url),
          '--allow-skip',
          'target_broken,not_applicable',
          '--out',
          join(dir, 'o.json'),
          '--junit',
          junit,
          '--json',
          '--ui',
          'none',
        ],
        { timeoutMs: 90_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const json = JSON.parse(result.stdout) as {
        ok: boolean;
        skippedByClass: Record<string, number>;
        checks: { skipClass?: string }[];
      };
      expect(json.ok).toBe(true);
      expect(json.skippedByClass.target_broken).toBeGreaterThan(0);
      expect(readFileSync(junit, 'utf8')).toContain('errors="0"');
      noSecretIn(result.stdout, result.stderr);
    });
  }, 120_000);
});
