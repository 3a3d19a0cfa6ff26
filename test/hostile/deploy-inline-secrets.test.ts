/**
 * `deploy kubernetes` never copies a secret into a ConfigMap unasked (issue 28 §7): a profile with
 * a client secret (or a secret token form field, or credentials in its target) written into it is
 * refused in one line, exit 2, pointing at `${VAR}` and the Secret the pods read — unless
 * `--allow-inline-secrets` says to copy it anyway.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';

const SECRET = 'inline-k8s-secret-91f3';
const dir = mkdtempSync(join(tmpdir(), 'rpcload-deploy-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
function profile(fields: Record<string, unknown>): string {
  const path = join(dir, `profile-${++count}.json`);
  const base = {
    name: 'nightly',
    target: '${RPCLOAD_TARGET}',
    clients: { pattern: 'k-{n}', count: 4, secret: '${CLIENT_SECRET}' },
    scenarios: [{ steps: [{ method: 'ping' }] }],
    phases: [{ duration: '10s', rate: 5 }],
  };
  writeFileSync(path, JSON.stringify({ ...base, ...fields }));
  return path;
}

const deploy = (path: string, ...flags: string[]) =>
  runRpcload(['deploy', 'kubernetes', path, '--shards', '2', ...flags]);

describe('deploy kubernetes and secrets written into the profile', () => {
  it.each([
    ['a pattern secret', { clients: { pattern: 'k-{n}', count: 4, secret: SECRET } }, '/clients/secret'],
    [
      'a listed client secret',
      {
        clients: {
          list: [
            { id: 'a', secret: '${A}' },
            { id: 'b', secret: SECRET },
          ],
        },
      },
      '/clients/list/1/secret',
    ],
    [
      'a default after :-',
      { clients: { pattern: 'k-{n}', count: 4, secret: `\${CLIENT_SECRET:-${SECRET}}` } },
      '/clients/secret',
    ],
    [
      'a secret token form field',
      { auth: { extraFields: { audience: 'api', client_assertion_password: SECRET } } },
      '/auth/extraFields/client_assertion_password',
    ],
    ['credentials in the target', { target: `https://user:${SECRET}@api.example.com` }, '/target'],
  ])(
    '%s: refused, one line, exit 2, the value never shown',
    async (_name, fields, pointer) => {
      const result = await deploy(profile(fields));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(
        `: ${pointer}: a secret written into the profile would be stored in the clear in the ConfigMap`,
      );
      expect(lines[0]).toMatch(
        /write it as "\$\{VAR\}" and put VAR in the Secret nightly-secrets .*or pass --allow-inline-secrets$/,
      );
      expect(result.stderr).not.toContain(SECRET);
    },
    30_000,
  );

  it('every secret from ${VAR} (or a secrets file): the manifests are printed', async () => {
    const result = await deploy(
      profile({ auth: { extraFields: { audience: 'api', client_assertion: '${ASSERTION}' } } }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('kind: ConfigMap');
  }, 30_000);

  it('--allow-inline-secrets copies them as asked', async () => {
    const result = await deploy(
      profile({ clients: { pattern: 'k-{n}', count: 4, secret: SECRET } }),
      '--allow-inline-secrets',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(SECRET);
  }, 30_000);
});
