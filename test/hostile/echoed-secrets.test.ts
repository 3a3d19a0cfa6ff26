/**
 * Servers that echo what they were sent: the client secret in a token error's error_description,
 * the bearer token as an error code, in a header and in a body. Neither the secret nor the token
 * may reach any output: stdout, stderr (progress lines included), the result file, --json, JUnit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import { rawResponse, startRawServer, type RawRequest, type TestServer } from '../support/http-server.ts';
import { useTempDir } from '../support/temp-dir.ts';

const SECRET = 'Echo+Secret/4f9c=';
const TOKEN = 'tok.Echoed-8d2e.f00d';

const tokenReply = rawResponse(
  200,
  JSON.stringify({ status: 'success', data: { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 } }),
);

/** What the echoing server answers to an API call (the token request is answered by `tokenBehaviour`). */
type Echo = (request: RawRequest, socket: Socket) => void;

const bearerOf = (request: RawRequest): string =>
  /\r\nauthorization:\s*Bearer\s+(\S+)/i.exec(request.head)?.[1] ?? 'none';

const ECHOES: Record<string, Echo> = {
  'the token as the error code': (request, socket) =>
    socket.write(
      rawResponse(401, JSON.stringify({ status: 'error', error: bearerOf(request) }), {
        'www-authenticate': 'Bearer error="invalid_token"',
      }),
    ),
  'the token inside a longer error code': (request, socket) =>
    socket.write(
      rawResponse(403, JSON.stringify({ status: 'error', error: `forbidden for ${bearerOf(request)} sorry` })),
    ),
  'the token in a header and an HTML body': (request, socket) =>
    socket.write(
      rawResponse(500, `<html>your token ${bearerOf(request)} is no good</html>`, {
        'content-type': 'text/html',
        'x-echo-token': bearerOf(request),
        'www-authenticate': `Bearer error="invalid_token", error_description="token ${bearerOf(request)} unknown"`,
      }),
    ),
  'the token as a key of data': (request, socket) =>
    socket.write(
      rawResponse(
        200,
        JSON.stringify({ status: 'success', data: { [bearerOf(request)]: [1, 2], next: bearerOf(request) } }),
      ),
    ),
};

/** Every echo in turn, one per API request. */
function everyEcho(): Echo {
  const echoes = Object.values(ECHOES);
  let next = 0;
  return (request, socket) => echoes[next++ % echoes.length]!(request, socket);
}

async function withEchoServer<T>(
  echo: Echo,
  body: (server: TestServer) => Promise<T>,
  tokenBehaviour?: Echo,
): Promise<T> {
  const server = await startRawServer((request, socket) => {
    if (request.path.endsWith('/auth.token')) (tokenBehaviour ?? ((_r, s) => s.write(tokenReply)))(request, socket);
    else echo(request, socket);
  });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

function profileFor(dir: string, target: string): string {
  const path = join(dir, 'echo.json');
  const profile = {
    name: 'echo',
    target,
    clients: {
      list: [
        { id: 'c1', secret: SECRET },
        { id: 'c2', secret: SECRET },
      ],
    },
    scenarios: [{ name: 'items', steps: [{ method: 'items.list', paginate: { maxPages: 2 } }] }],
    phases: [{ name: 'p', duration: '1s', rate: 20 }],
    rateLimit: { limit: 5, window: '1s' },
    http: { headersTimeout: '1s', bodyTimeout: '1s', requestTimeout: '2s' },
  };
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

function expectNoSecret(where: string, text: string): void {
  for (const secret of [SECRET, TOKEN, encodeURIComponent(SECRET)])
    expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
}

// Tests here run concurrently, and global test hooks cannot tell which one is running: each makes
// its directory inside this one, which goes when the file is done.
const root = useTempDir('rpcload-echo-');

describe.concurrent('a server that echoes secrets and tokens', () => {
  it('a token error echoing the secret in error_description: exit 2, one line, no secret (run and verify)', async () => {
    const echoSecret: Echo = (request, socket) =>
      socket.write(
        rawResponse(
          401,
          JSON.stringify({
            error: 'invalid_client',
            error_description: `secret ${SECRET} (${decodeURIComponent(request.body.toString())}) is wrong`,
          }),
        ),
      );
    await withEchoServer(
      () => undefined,
      async (server) => {
        const dir = mkdtempSync(join(root, 'case-'));
        for (const command of ['run', 'verify']) {
          const result = await runRpcload(
            [command, profileFor(dir, server.url), '--out', join(dir, `${command}.json`), '--ui', 'none'],
            {
              timeoutMs: 90_000,
            },
          );
          expect(result.code, result.stderr).toBe(2);
          expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
          expect(result.stderr).toMatch(/c1|c2/);
          expectNoSecret(`${command} stderr`, result.stderr);
          expectNoSecret(`${command} stdout`, result.stdout);
        }
      },
      echoSecret,
    );
  }, 120_000);

  it('run: every echo in turn → no token in the summary, --json, progress lines or the result file', async () => {
    await withEchoServer(everyEcho(), async (server) => {
      const dir = mkdtempSync(join(root, 'case-'));
      const out = join(dir, 'run.json');
      const plain = await runRpcload(['run', profileFor(dir, server.url), '--out', out, '--ui', 'plain'], {
        timeoutMs: 90_000,
      });
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(plain.stdout).toMatch(/outcomes .*error:/); // the echoed codes did arrive, redacted
      expectNoSecret('stdout', plain.stdout);
      expectNoSecret('stderr', plain.stderr);
      expectNoSecret('result file', readFileSync(out, 'utf8'));
      await readResultFile(out); // still a valid result file
      const json = await runRpcload(
        ['run', profileFor(dir, server.url), '--out', join(dir, 'run2.json'), '--json', '--ui', 'none'],
        {
          timeoutMs: 90_000,
        },
      );
      expect(json.code, json.stderr).toBe(0);
      expectNoSecret('--json', json.stdout);
      expectNoSecret('--json stderr', json.stderr);
    });
  }, 120_000);

  it('verify: every echo in turn → no token in the table, progress lines, --json, JUnit or the result file', async () => {
    await withEchoServer(everyEcho(), async (server) => {
      const dir = mkdtempSync(join(root, 'case-'));
      const out = join(dir, 'verify.json');
      const junit = join(dir, 'junit.xml');
      const args = ['verify', profileFor(dir, server.url), '--paginated', 'items.list', '--out', out, '--junit', junit];
      const plain = await runRpcload([...args, '--ui', 'plain'], { timeoutMs: 90_000 });
      expect(plain.code, plain.stderr).toBe(1);
      expect(plain.stderr).not.toMatch(/internal error|\n\s+at /);
      expectNoSecret('stdout', plain.stdout);
      expectNoSecret('stderr (progress lines)', plain.stderr);
      expectNoSecret('result file', readFileSync(out, 'utf8'));
      await readResultFile(out);
      expectNoSecret('JUnit', readFileSync(junit, 'utf8'));
      const json = await runRpcload([...args, '--json', '--ui', 'none'], { timeoutMs: 90_000 });
      expect(json.code, json.stderr).toBe(1);
      expectNoSecret('--json', json.stdout);
    });
  }, 120_000);
});
