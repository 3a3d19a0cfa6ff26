/**
 * Client certificates (mTLS) and private_key_jwt end to end through the CLI, against the reference
 * server requiring client certificates issued by a test CA and verifying client assertions with
 * registered public keys: the right certificate passes and no certificate or a wrong one fails
 * with a clear line; a bad key pair or a wrong passphrase is one line naming the file; per-client
 * certificates give each client connections of its own; private_key_jwt gets tokens without a
 * secret, and a key the server does not know is refused with the server's reason.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { runRpcload } from '../support/cli.ts';
import { clientCertificate, serverCertificate, TempDir, testCa, type Pem } from '../support/test-certificates.ts';

let dir: TempDir;
let server: ServerHandle;
let ca: Pem;
const files: Record<string, string> = {};
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });

beforeAll(async () => {
  dir = new TempDir();
  ca = await testCa();
  const other = await testCa('another CA');
  const [tls, one, two, wrong, locked] = await Promise.all([
    serverCertificate(ca),
    clientCertificate(ca, 'client-1'),
    clientCertificate(ca, 'client-2'),
    clientCertificate(other, 'client-1'),
    clientCertificate(ca, 'client-3', 'open sesame'),
  ]);
  files.ca = dir.write('ca.pem', ca.cert);
  files.oneCert = dir.write('one.pem', one.cert);
  files.oneKey = dir.write('one.key', one.key);
  files.twoKey = dir.write('two.key', two.key);
  files.wrongCert = dir.write('wrong.pem', wrong.cert);
  files.wrongKey = dir.write('wrong.key', wrong.key);
  files.lockedCert = dir.write('locked.pem', locked.cert);
  files.lockedKey = dir.write('locked.key', locked.key);
  // per-client certificates, each file holding the certificate and its key
  for (const id of ['app-1', 'app-2', 'app-3']) {
    const pem = await clientCertificate(ca, id);
    dir.write(`certs/${id}.pem`, `${pem.cert}\n${pem.key}`);
  }
  dir.write('keys/jwt-1.pem', rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  dir.write('keys/jwt-2.json', JSON.stringify({ ...rsa.privateKey.export({ format: 'jwk' }), kid: 'k2' }));
  dir.write('keys/jwt-bad.pem', stranger.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const publicKey = rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  server = await startServer({
    tls,
    clientCa: ca.cert,
    clientKeys: ['jwt-1', 'jwt-2', 'jwt-bad'].map((id) => ({ id, key: publicKey })),
  });
});
afterAll(async () => {
  await server.close();
  dir.remove();
});

const result = (path: string): RunResult => JSON.parse(readFileSync(path, 'utf8')) as RunResult;
const ping = (...extra: string[]): string[] => [
  'run',
  '--target',
  server.url,
  '--ca',
  files.ca!,
  '--client',
  'client-1:demo-secret',
  '--method',
  'ping',
  '--rate',
  '10',
  '--duration',
  '1s',
  '--ui',
  'none',
  ...extra,
];

describe('client certificates (mTLS)', () => {
  it('the right certificate passes, for the token request and the API calls', async () => {
    const out = `${dir.path}/right.json`;
    const run = await runRpcload([...ping('--cert', files.oneCert!, '--key', files.oneKey!, '--out', out)]);
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(r.summary.outcomes).toEqual({ success: r.summary.requests });
    expect(r.summary.tokens.failures).toBe(0);
    expect(r.config.http).toMatchObject({ identity: `(client certificate ${files.oneCert})` });
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('no certificate: one clear line, exit 2', async () => {
    const run = await runRpcload(ping('--out', `${dir.path}/none.json`));
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /the server requires a client certificate \(mTLS\) and none was presented .*: pass --cert FILE --key FILE/,
    );
  });

  it('a certificate from another CA: one clear line naming it, exit 2', async () => {
    const run = await runRpcload(
      ping('--cert', files.wrongCert!, '--key', files.wrongKey!, '--out', `${dir.path}/wrong.json`),
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`the server refused the client certificate ${files.wrongCert}`);
  });

  it('a key that is not the certificate’s: one line naming both files, exit 2, nothing sent', async () => {
    const before = server.stats().requests;
    const run = await runRpcload(ping('--cert', files.oneCert!, '--key', files.twoKey!));
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `rpcload: --cert: ${JSON.stringify(files.twoKey)}: the private key does not belong to the certificate ${JSON.stringify(files.oneCert)}`,
    );
    expect(server.stats().requests).toBe(before);
  });

  it('an encrypted key opens with --key-passphrase-env, and says so without it', async () => {
    const locked = ['--cert', files.lockedCert!, '--key', files.lockedKey!];
    const without = await runRpcload(ping(...locked));
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/cannot decrypt the private key \(wrong or missing passphrase/);
    const out = `${dir.path}/locked.json`;
    const opened = await runRpcload(ping(...locked, '--key-passphrase-env', 'KEY_PASS', '--out', out), {
      env: { KEY_PASS: 'open sesame' },
    });
    expect(opened.code, opened.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toContain('open sesame');
  });

  it('per-client certificates (certPattern): each client presents its own, on token requests and API calls alike', async () => {
    // A server that notes which certificate (its common name) each client's requests came with.
    const seen = new Map<string, Set<string>>();
    const tokens = new Map<string, string>();
    const tls = await serverCertificate(ca);
    const echo = createHttpsServer(
      { cert: tls.cert, key: tls.key, ca: ca.cert, requestCert: true, rejectUnauthorized: true },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const cn = String((req.socket as TLSSocket).getPeerCertificate().subject?.CN);
          const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
          const client =
            token === undefined
              ? (new URLSearchParams(Buffer.concat(chunks).toString()).get('client_id') ?? '?')
              : (tokens.get(token) ?? '?');
          seen.set(client, (seen.get(client) ?? new Set()).add(`${token === undefined ? 'token' : 'api'}:${cn}`));
          res.writeHead(200, { 'content-type': 'application/json' });
          if (token !== undefined) return res.end('{"status":"success","data":{}}');
          const issued = `token-of-${client}`;
          tokens.set(issued, client);
          res.end(
            JSON.stringify({
              status: 'success',
              data: { access_token: issued, token_type: 'Bearer', expires_in: 3600 },
            }),
          );
        });
      },
    );
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    try {
      const out = `${dir.path}/per-client.json`;
      const profile = dir.write(
        'per-client.profile.json',
        JSON.stringify({
          target: `https://127.0.0.1:${(echo.address() as AddressInfo).port}`,
          http: { ca: 'ca.pem', connections: 6 },
          clients: { pattern: 'app-{n}', count: 3, secret: 'app-secret', certPattern: 'certs/{id}.pem' },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: '1s', rate: 12 }],
        }),
      );
      const run = await runRpcload(['run', profile, '--ui', 'none', '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      expect(Object.fromEntries([...seen].map(([client, certs]) => [client, [...certs].sort()]))).toEqual({
        'app-1': ['api:app-1', 'token:app-1'],
        'app-2': ['api:app-2', 'token:app-2'],
        'app-3': ['api:app-3', 'token:app-3'],
      });
      // a lane of connections per client: one each carried this light load
      expect(result(out).summary.connections).toEqual({ opened: 3, byProtocol: { 'http/1.1': 3 } });
      expect(result(out).config.clients).toContainEqual(
        expect.objectContaining({ id: 'app-2', certificate: 'certs/app-2.pem' }),
      );
    } finally {
      echo.closeAllConnections();
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it('a per-client certificate with the wrong key is a profile problem naming the file', async () => {
    dir.write('mixed/ok.pem', readFileSync(`${dir.path}/certs/app-1.pem`, 'utf8'));
    const profile = dir.write(
      'mixed/profile.json',
      JSON.stringify({
        target: server.url,
        clients: {
          list: [
            { id: 'a', secret: 's', cert: 'ok.pem' },
            { id: 'b', secret: 's', cert: '../one.pem', key: '../two.key' },
          ],
        },
        scenarios: [{ steps: [{ method: 'ping' }] }],
        phases: [{ duration: '1s', rate: 1 }],
      }),
    );
    const run = await runRpcload(['profile', 'validate', profile]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      `${profile}: /clients/list/1/cert: expected a client certificate with its private key, found "../two.key": the private key does not belong to the certificate "../one.pem"`,
    );
  });
});

describe('private_key_jwt', () => {
  function jwtProfile(
    name: string,
    clients: readonly { id: string; privateKey: string }[],
    target: string | null = server.url,
  ): string {
    return dir.write(
      `${name}.profile.json`,
      JSON.stringify({
        ...(target === null ? {} : { target, http: { ca: 'ca.pem', cert: 'one.pem', key: 'one.key' } }),
        auth: { clientAuth: 'private_key_jwt' },
        clients: { list: clients },
        scenarios: [{ steps: [{ method: 'ping' }] }],
        phases: [{ duration: '1s', rate: 10 }],
      }),
    );
  }

  it('gets tokens with signed assertions (PEM and JWK keys) and no secret, over mTLS', async () => {
    const out = `${dir.path}/jwt.json`;
    const profile = jwtProfile('jwt', [
      { id: 'jwt-1', privateKey: 'keys/jwt-1.pem' },
      { id: 'jwt-2', privateKey: 'keys/jwt-2.json' },
    ]);
    const run = await runRpcload(['run', profile, '--ui', 'none', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const r = result(out);
    expect(r.summary.tokens).toMatchObject({ requests: 2, failures: 0 });
    expect(r.summary.outcomes).toEqual({ success: r.summary.requests });
    expect(r.config.clients).toEqual([
      { id: 'jwt-1', secret: '[redacted]', weight: 1, signingKey: 'PEM key, RS256' },
      { id: 'jwt-2', secret: '[redacted]', weight: 1, signingKey: 'JWK key, RS256' },
    ]);
    expect(readFileSync(out, 'utf8')).not.toMatch(/PRIVATE KEY|"d":/);
  });

  it('a key the server does not know is refused, and the reason reported (exit 2)', async () => {
    const run = await runRpcload([
      'run',
      jwtProfile('jwt-bad', [{ id: 'jwt-bad', privateKey: 'keys/jwt-bad.pem' }]),
      '--ui',
      'none',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /client jwt-bad: token request refused \(HTTP 401\): invalid_client — the client assertion signature does not verify with the key registered for the client/,
    );
  });

  it('works against the embedded server, which is given the public keys', async () => {
    const out = `${dir.path}/jwt-embedded.json`;
    const run = await runRpcload([
      'run',
      jwtProfile('jwt-embedded', [{ id: 'jwt-1', privateKey: 'keys/jwt-1.pem' }], null),
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(result(out).summary.tokens.failures).toBe(0);
  });

  it('a client without a key is a profile problem', async () => {
    const profile = dir.write(
      'jwt-missing.json',
      JSON.stringify({
        target: server.url,
        auth: { clientAuth: 'private_key_jwt' },
        clients: { list: [{ id: 'jwt-1', privateKey: 'keys/jwt-1.pem' }, { id: 'nokey' }] },
        scenarios: [{ steps: [{ method: 'ping' }] }],
        phases: [{ duration: '1s', rate: 1 }],
      }),
    );
    const run = await runRpcload(['profile', 'validate', profile]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('/auth/clientAuth: expected a private key for every client with private_key_jwt');
    expect(run.stderr).toContain('found none for nokey');
  });

  it('verify authenticates with assertions and a client certificate', async () => {
    const out = `${dir.path}/jwt-verify.json`;
    const profile = jwtProfile('jwt-verify', [
      { id: 'jwt-1', privateKey: 'keys/jwt-1.pem' },
      { id: 'jwt-2', privateKey: 'keys/jwt-2.json' },
    ]);
    const run = await runRpcload([
      'verify',
      profile,
      '--only',
      'envelope,auth.invalid_token,tls',
      '--ui',
      'none',
      '--out',
      out,
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(result(out).checks.map((c) => c.verdict)).toEqual(['pass', 'pass', 'pass']);
  });
});
