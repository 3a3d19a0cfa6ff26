/**
 * A server that echoes the new kinds of credentials: the client assertion of a private_key_jwt
 * token request (in a refusal's error_description, and in API error codes and headers), and — as a
 * server that somehow holds them would — the client's private key, a certificate key's passphrase
 * and the client's signing secret. None may reach any output: stdout, stderr, --json, JUnit, the
 * result file.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';
import { rawResponse, startRawServer, type RawRequest, type TestServer } from '../support/http-server.ts';
import { clientCertificate, TempDir, testCa } from '../support/test-certificates.ts';

// Only characters an error code keeps as they are: an echo that slipped through would show verbatim.
const SIGNING_SECRET = 'signing-secret-7e1a';
const PASSPHRASE = 'passphrase-51d0';
const TOKEN = 'tok.EchoCredentials-44aa';
const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KEY_PEM = key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const KEY_BODY = KEY_PEM.split('\n')
  .filter((l) => l !== '' && !l.startsWith('-----'))
  .join('');
const JWK_D = (key.privateKey.export({ format: 'jwk' }) as { d: string }).d;

/** The assertions the server received (and echoed). */
const assertions: string[] = [];

function tokenEcho(request: RawRequest, socket: Socket, refuse: boolean): void {
  const assertion = new URLSearchParams(request.body.toString()).get('client_assertion') ?? 'none';
  assertions.push(assertion);
  if (refuse)
    return void socket.write(
      rawResponse(
        401,
        JSON.stringify({
          error: 'invalid_client',
          error_description: `assertion ${assertion} and key ${KEY_BODY} refused`,
        }),
      ),
    );
  socket.write(
    rawResponse(
      200,
      JSON.stringify({ status: 'success', data: { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600 } }),
    ),
  );
}

/** Every API call answered with one of the credentials echoed somewhere. */
function apiEcho(): (request: RawRequest, socket: Socket) => void {
  let n = 0;
  return (_request, socket) => {
    const assertion = assertions.at(-1) ?? 'none';
    const echoes = [
      () =>
        socket.write(rawResponse(400, JSON.stringify({ status: 'error', error: `${SIGNING_SECRET}:${PASSPHRASE}` }))),
      () =>
        socket.write(
          rawResponse(401, JSON.stringify({ status: 'error', error: assertion }), {
            'www-authenticate': `Bearer error_description="${assertion}"`,
          }),
        ),
      () =>
        socket.write(
          rawResponse(500, `<html>key ${KEY_PEM} passphrase ${PASSPHRASE} d=${JWK_D}</html>`, {
            'content-type': 'text/html',
            'x-echo': PASSPHRASE,
          }),
        ),
      () =>
        socket.write(
          rawResponse(
            200,
            JSON.stringify({ status: 'success', data: { [JWK_D]: PASSPHRASE, [SIGNING_SECRET]: KEY_BODY } }),
          ),
        ),
    ];
    echoes[n++ % echoes.length]!();
  };
}

let dir: TempDir;
let refusing: TestServer;
let echoing: TestServer;
beforeAll(async () => {
  dir = new TempDir();
  const ca = await testCa();
  const locked = await clientCertificate(ca, 'client', PASSPHRASE);
  dir.write('client.pem', locked.cert);
  dir.write('client.key', locked.key);
  dir.write('jwt.pem', KEY_PEM);
  dir.write(
    'sign.mjs',
    "import { createHmac } from 'node:crypto';\nexport default ({ body, signingSecret }) => ({ 'x-signature': createHmac('sha256', signingSecret).update(body).digest('hex') });\n",
  );
  refusing = await startRawServer((request, socket) =>
    request.path.endsWith('/auth.token') ? tokenEcho(request, socket, true) : socket.destroy(),
  );
  const api = apiEcho();
  echoing = await startRawServer((request, socket) =>
    request.path.endsWith('/auth.token') ? tokenEcho(request, socket, false) : api(request, socket),
  );
});
afterAll(async () => {
  await Promise.all([refusing.close(), echoing.close()]);
  dir.remove();
});

function profile(name: string, target: string): string {
  return dir.write(
    `${name}.profile.json`,
    JSON.stringify({
      name,
      target,
      auth: { clientAuth: 'private_key_jwt' },
      clients: { list: [{ id: 'app-1', privateKey: 'jwt.pem', signingSecret: SIGNING_SECRET }] },
      http: { cert: 'client.pem', key: 'client.key', keyPassphrase: PASSPHRASE, requestTimeout: '2s' },
      sign: './sign.mjs',
      scenarios: [{ steps: [{ method: 'items.list' }] }],
      phases: [{ duration: '1s', rate: 16 }],
    }),
  );
}

/** Long credentials show up truncated when they slip through: a prefix of each is looked for. */
function expectNoCredential(where: string, text: string): void {
  const secrets = {
    SIGNING_SECRET,
    PASSPHRASE,
    TOKEN,
    'the key': KEY_BODY.slice(0, 40),
    "the JWK's d": JWK_D.slice(0, 24),
    ...Object.fromEntries(assertions.map((a, i) => [`assertion ${i}`, a])),
  };
  for (const [name, secret] of Object.entries(secrets))
    expect(text.includes(secret), `${where} holds ${name}`).toBe(false);
}

describe('a server that echoes assertions, keys, passphrases and signing secrets', () => {
  it('a token refusal echoing the assertion and the key: exit 2, one line, neither in it (run and verify)', async () => {
    for (const command of ['run', 'verify']) {
      const run = await runRpcload([
        command,
        profile(`refused-${command}`, refusing.url),
        '--ui',
        'none',
        '--out',
        `${dir.path}/refused-${command}-out.json`,
      ]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/invalid_client/);
      expectNoCredential(`${command} stderr`, run.stderr);
      expectNoCredential(`${command} stdout`, run.stdout);
    }
    expect(assertions.length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('API replies echoing every credential: not in the summary, --json, progress lines, JUnit or the result file', async () => {
    const out = `${dir.path}/echo.json`;
    const junit = `${dir.path}/echo.xml`;
    const plain = await runRpcload([
      'run',
      profile('echo', echoing.url),
      '--ui',
      'plain',
      '--out',
      out,
      '--junit',
      junit,
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/outcomes .*error:/); // the echoes arrived, and were scrubbed
    expectNoCredential('stdout', plain.stdout);
    expectNoCredential('stderr', plain.stderr);
    expectNoCredential('result file', readFileSync(out, 'utf8'));
    expectNoCredential('JUnit', readFileSync(junit, 'utf8'));
    await readResultFile(out);
    const json = await runRpcload([
      'run',
      profile('echo-json', echoing.url),
      '--json',
      '--ui',
      'none',
      '--out',
      `${dir.path}/echo2.json`,
    ]);
    expect(json.code, json.stderr).toBe(0);
    expectNoCredential('--json', json.stdout);
  }, 120_000);
});
