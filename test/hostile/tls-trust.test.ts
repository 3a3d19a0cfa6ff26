/**
 * TLS trust, said plainly (issue 28 §13, §19): `--insecure` is never silent — a warning line when
 * the run or verify starts and a warning in the result file — even against an expired certificate;
 * and an expired certificate, or one issued for another host, is named as such (with its date, or
 * the names it is for), instead of the "pass --ca FILE or --insecure" hint that fixes neither.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { runRpcload } from '../support/cli.ts';

type AltNames = { type: 2; value: string }[] | { type: 7; ip: string }[];

const EXPIRED_ON = new Date('2026-01-02T03:04:05Z');

/** A self-signed certificate for `altNames`, valid from `notBefore` to `notAfter`. */
async function certificate(
  notBefore: Date,
  notAfter: Date,
  altNames: AltNames,
): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'rpcload-test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: notBefore,
    notAfterDate: notAfter,
    extensions: [{ name: 'subjectAltName', altNames }],
  });
  return { cert: pems.cert, key: pems.private };
}

const LOCAL: AltNames = [{ type: 7, ip: '127.0.0.1' }];
let dir: string;
let expired: ServerHandle;
let otherHost: ServerHandle;
let caOf: { expired: string; otherHost: string };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rpcload-tls-trust-'));
  const [old, foreign] = await Promise.all([
    certificate(new Date('2025-01-01T00:00:00Z'), EXPIRED_ON, LOCAL),
    certificate(new Date(Date.now() - 60_000), new Date(Date.now() + 86_400_000), [
      { type: 2, value: 'api.example.com' },
    ]),
  ]);
  [expired, otherHost] = await Promise.all([startServer({ tls: old }), startServer({ tls: foreign })]);
  caOf = { expired: join(dir, 'expired.pem'), otherHost: join(dir, 'other-host.pem') };
  await Promise.all([writeFile(caOf.expired, old.cert), writeFile(caOf.otherHost, foreign.cert)]);
});
afterAll(async () => {
  await Promise.all([expired.close(), otherHost.close()]);
  await rm(dir, { recursive: true, force: true });
});

const run = (server: ServerHandle, trust: string[], out = join(dir, `${Math.random()}.json`)) =>
  runRpcload([
    'run',
    '--target',
    server.url,
    '--client',
    'client-1:demo-secret',
    '--method',
    'ping',
    '--rate',
    '5',
    '--duration',
    '1s',
    '--out',
    out,
    '--ui',
    'none',
    ...trust,
  ]);

const verify = (server: ServerHandle, trust: string[], out = join(dir, `${Math.random()}.json`)) =>
  runRpcload([
    'verify',
    '--target',
    server.url,
    '--client',
    'client-1:demo-secret',
    '--method',
    'ping',
    '--only',
    'auth.missing_token',
    '--out',
    out,
    '--ui',
    'none',
    ...trust,
  ]);

const INSECURE =
  /^warning: TLS certificate verification is off \(--insecure or http\.insecure\): https:\/\/127\.0\.0\.1:\d+ was not authenticated/m;

describe.concurrent('--insecure is never silent', () => {
  it('run: a warning line up front, and in the result file (here against an expired certificate)', async () => {
    const out = join(dir, 'insecure-run.json');
    const result = await run(expired, ['--insecure'], out);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(INSECURE);
    expect((await readResultFile(out)).warnings).toContainEqual(
      expect.stringMatching(/^TLS certificate verification is off/),
    );
  }, 60_000);

  it('verify: the same line, and the result file records it', async () => {
    const out = join(dir, 'insecure-verify.json');
    const result = await verify(otherHost, ['--insecure'], out);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(INSECURE);
    expect((await readResultFile(out)).warnings).toContainEqual(
      expect.stringMatching(/^TLS certificate verification is off/),
    );
  }, 60_000);

  it('no warning when certificates are checked', async () => {
    const fresh = await startServer({ tls: true });
    try {
      const ca = join(dir, 'fresh.pem');
      await writeFile(ca, fresh.certPem!);
      const result = await run(fresh, ['--ca', ca]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/verification is off/);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});

describe.concurrent('a certificate refused for what it is', () => {
  it('expired: run and verify say when it expired, not "pass --ca or --insecure"', async () => {
    for (const result of [await run(expired, ['--ca', caOf.expired]), await verify(expired, ['--ca', caOf.expired])]) {
      expect(result.code, result.stderr).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /CERT_HAS_EXPIRED \(the server certificate expired on 2026-01-02T03:04:05Z: it must be renewed/,
      );
      expect(lines[0]).not.toMatch(/pass --ca/);
    }
  }, 60_000);

  it('for another host: run and verify name the host it is for', async () => {
    for (const result of [
      await run(otherHost, ['--ca', caOf.otherHost]),
      await verify(otherHost, ['--ca', caOf.otherHost]),
    ]) {
      expect(result.code, result.stderr).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /\(the server certificate is for api\.example\.com, not 127\.0\.0\.1: use a target URL with a name it was issued for\)/,
      );
      expect(lines[0]).not.toMatch(/pass --ca/);
    }
  }, 60_000);
});
