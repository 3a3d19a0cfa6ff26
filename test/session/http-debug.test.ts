/**
 * `--http-debug[=N]` on a real run: a server in front of the reference server issues real tokens
 * (forwarding the token request to it) and answers every API call by echoing the call's
 * Authorization header back — in its body, under a secret-named field and not, and in a response
 * header — together with the client secret and terminal escape sequences. The printout has the
 * first N exchanges, in full, and never a token, the secret or a raw control character.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControls, HttpDebug } from '../../src/driver/http-debug.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runSession } from '../../src/session/run-session.ts';
import { startScriptedServer, type TestServer } from '../support/http-server.ts';
import { useTempDir } from '../support/temp-dir.ts';

const SECRET = 'debug-secret-5f3a';
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m';
const dir = useTempDir('rpcload-http-debug-');
let reference: ServerHandle;
let echo: TestServer;
/** The Authorization headers the echo server saw (the tokens the printout must not show). */
const authorizations = new Set<string>();

beforeAll(async () => {
  reference = await startServer({ clientPattern: { prefix: 'client-', secret: SECRET } });
  echo = await startScriptedServer((req, res) => {
    const authorization = req.headers.authorization;
    if (authorization === undefined || !authorization.startsWith('Bearer ')) {
      // The token request: to the reference server, its answer back as it came.
      void fetch(`${reference.url}${req.url}`, {
        method: req.method,
        headers: {
          'content-type': String(req.headers['content-type'] ?? ''),
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
        body: req.body,
      }).then(async (reply) => {
        res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
        res.end(await reply.text());
      });
      return;
    }
    authorizations.add(authorization);
    const token = authorization.slice('Bearer '.length);
    const data = {
      youSent: authorization,
      access_token: token,
      note: `token ${token}, secret ${SECRET}`,
      hostile: HOSTILE,
    };
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-echo-authorization': authorization,
      'x-echo-token': token,
      'x-hostile': '\u009b2J',
    });
    res.end(JSON.stringify({ status: 'success', data }));
  });
});
afterAll(async () => {
  await echo.close();
  await reference.close();
});

async function debugRun(limit: number): Promise<string> {
  let printed = '';
  const plan = buildPlan(
    {
      name: 'debug',
      target: echo.url,
      clients: { pattern: 'client-{n}', count: 2, secret: SECRET },
      scenarios: [{ name: 'echo', steps: [{ method: 'echo', args: { message: `hi ${HOSTILE}`, secret: SECRET } }] }],
      phases: [{ duration: '1s', rate: 10 }],
    },
    { source: join(dir, 'profile.json') },
  );
  const session = await runSession({
    plan,
    outPath: join(dir, `${limit}.json`),
    signal: new AbortController().signal,
    createView: () => ({ start: () => undefined, stop: () => undefined }),
    httpDebug: new HttpDebug(limit, (text) => (printed += text)),
  });
  expect(session.result.summary.requests).toBeGreaterThan(limit);
  return printed;
}

describe('--http-debug', () => {
  it('prints the first N exchanges in full, with every credential redacted and every control character escaped', async () => {
    const printed = await debugRun(4);
    const blocks = printed.split(/^── http-debug /m).filter((b) => b.length > 0);
    expect(blocks.map((b) => b.split(' ')[0])).toEqual(['1/4', '2/4', '3/4', '4/4']);
    // the two clients' token requests come first: the form's secret and the issued token redacted
    const tokens = blocks.filter((b) => !b.includes('> POST /api/echo'));
    expect(tokens).toHaveLength(2);
    for (const token of tokens) {
      expect(token).toMatch(/^> POST \/api\/\S+$/m);
      expect(token).toMatch(/^> content-type: application\/x-www-form-urlencoded$/m);
      expect(token).toMatch(/^> .*client_id=client-\d.*client_secret=\[redacted\]/m);
      expect(token).toMatch(/^< 200$/m);
      expect(token).toMatch(/"access_token":"\[redacted\]"/);
    }
    const first = blocks.find((b) => b.includes('> POST /api/echo'))!;
    expect(first).toMatch(/^> POST \/api\/echo$/m);
    expect(first).toMatch(/^> authorization: \[redacted\]$/m);
    expect(first).toMatch(/^> content-type: application\/json$/m);
    // the request body: the secret-named field and the secret's value redacted, the escapes escaped
    expect(first).toContain('> {"message":"hi \\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m","secret":"[redacted]"}');
    expect(first).toMatch(/^< 200$/m);
    expect(first).toMatch(/^< x-echo-authorization: \[redacted\]$/m);
    expect(first).toMatch(/^< x-echo-token: \[redacted\]$/m);
    // a C1 byte in a header (read as UTF-8: the replacement character) reaches no terminal as CSI
    expect(first).toMatch(/^< x-hostile: (\\u009b|\uFFFD)2J$/m);
    expect(first).toMatch(/^< content-type: application\/json$/m);
    expect(first).toContain('"youSent":"Bearer [redacted]"');
    expect(first).toContain('"access_token":"[redacted]"');
    expect(first).toContain('"note":"token [redacted], secret [redacted]"');
    // nothing the terminal would obey, no token, no secret
    // eslint-disable-next-line no-control-regex
    expect(printed.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(authorizations.size).toBeGreaterThan(0);
    for (const authorization of authorizations) expect(printed).not.toContain(authorization.slice('Bearer '.length));
    expect(printed).not.toContain(SECRET);
  });

  it('cuts a body at 2 KB and says how long it was', async () => {
    const long = JSON.stringify({ status: 'success', data: { text: 'x'.repeat(5000) } });
    const { formatExchange } = await import('../../src/driver/http-debug.ts');
    const text = formatExchange(
      {
        head: { method: 'POST', path: '/api/big', headers: [], traceparent: null, body: Buffer.from('{}') },
        status: 200,
        responseHeaders: [],
        contentEncoding: undefined,
        bodyBytes: long.length,
        error: null,
        responseBody: () => Buffer.from(long),
      },
      '1/1',
    );
    const body = text.split('\n').find((line) => line.startsWith('< {'))!;
    expect(body).toBe(`< ${long.slice(0, 2048)} … (${long.length} bytes in all)`);
  });

  it.each([
    ['plain text', 'plain text'],
    ['ESC and BEL', '\u001b]0;x\u0007', '\\u001b]0;x\\u0007'],
    ['CSI as C1', '\u009b2J', '\\u009b2J'],
    ['carriage return and newline', 'a\r\nb', 'a\\u000d\\u000ab'],
    ['bidi override', 'a\u202eb', 'a\\u202eb'],
    ['tab kept', 'a\tb', 'a\tb'],
  ])('escapes %s', (_, input, expected = input) => {
    expect(escapeControls(input)).toBe(expected);
  });
});
