import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

/** The `tls` check against https reference servers, through the CLI (trust via --ca or --insecure). */
describe.concurrent('verify tls (https targets)', () => {
  let modern: ServerHandle;
  let legacy: ServerHandle;
  const dir = useTempDir('rpcload-verify-tls-');
  let caFile: string;
  beforeAll(async () => {
    [modern, legacy] = await Promise.all([
      startServer({ tls: true }),
      startServer({ tls: true, faults: ['tls-legacy'] }),
    ]);
    caFile = join(dir, 'ca.pem');
    await writeFile(caFile, modern.certPem!);
  });
  afterAll(async () => {
    await Promise.all([modern.close(), legacy.close()]);
  });

  const verifyTls = (server: ServerHandle, trust: string[]) =>
    runRpcload([
      'verify',
      '--target',
      server.url,
      '--client',
      'client-1:demo-secret',
      '--method',
      'ping',
      '--only',
      'tls',
      '--json',
      '--out',
      join(dir, `${Math.random()}.json`),
      ...trust,
    ]);

  it.each([
    ['--ca FILE', () => ['--ca', caFile]],
    ['--insecure', () => ['--insecure']],
  ])('TLS 1.2+ negotiated and TLS 1.1 refused: pass (trusted with %s)', async (_name, trust) => {
    const result = await verifyTls(modern, trust());
    expect(result.code, result.stderr).toBe(0);
    const [tls] = (JSON.parse(result.stdout) as { checks: { id: string; verdict: string; detail: string }[] }).checks;
    expect(tls).toMatchObject({ id: 'tls', verdict: 'pass' });
    expect(tls!.detail).toMatch(/^negotiated TLSv1\.[23] \(.+\); a TLS 1\.1-only handshake was refused by the server/);
  });

  it('a server that also accepts TLS 1.1 fails', async () => {
    const result = await verifyTls(legacy, ['--insecure']);
    expect(result.code, result.stderr).toBe(1);
    const [tls] = (JSON.parse(result.stdout) as { checks: { verdict: string; detail: string }[] }).checks;
    expect(tls).toMatchObject({ verdict: 'fail' });
    expect(tls!.detail).toMatch(/a TLS 1\.1-only handshake was accepted too \(TLSv1\.1/);
  });

  it('an untrusted certificate is a clear exit 2', async () => {
    const result = await verifyTls(modern, []);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(
      /^rpcload: cannot reach https:\/\/127\.0\.0\.1:\d+: \w+ \(the server certificate is not trusted: pass --ca FILE or --insecure, or set http\.ca in the profile\)$/,
    );
  });
});
