/**
 * Reading and checking credential files before any load: client certificates with their keys
 * (PEM, one file or two, encrypted; PKCS#12 is checked the same way) and private_key_jwt keys (PEM
 * or JWK). Every failure is one reason naming the file, never its contents.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAssertionKey, readTlsIdentity } from '../../src/profile/key-files.ts';
import { planSecrets } from '../../src/profile/plan-secrets.ts';
import { describePlan } from '../../src/profile/describe-plan.ts';
import { buildPlan } from '../../src/profile/build-plan.ts';
import type { Profile } from '../../src/profile/profile-schema.ts';
import { clientCertificate, TempDir, testCa } from '../support/test-certificates.ts';

let dir: TempDir;
beforeAll(async () => {
  dir = new TempDir();
  const ca = await testCa();
  const [one, two, locked] = await Promise.all([
    clientCertificate(ca, 'one'),
    clientCertificate(ca, 'two'),
    clientCertificate(ca, 'locked', 'pw-1'),
  ]);
  dir.write('one.pem', one.cert);
  dir.write('one.key', one.key);
  dir.write('two.key', two.key);
  dir.write('both.pem', `${one.cert}\n${one.key}`);
  dir.write('locked.pem', locked.cert);
  dir.write('locked.key', locked.key);
  dir.write('junk.pem', 'not a certificate at all');
  dir.write('junk.p12', 'not a PKCS#12 file');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  dir.write('rsa.pem', rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  dir.write('ec.pem', ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString());
  dir.write('p384.pem', p384.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  dir.write('ps.json', JSON.stringify({ ...rsa.privateKey.export({ format: 'jwk' }), alg: 'PS256', kid: 'kid-7' }));
  dir.write('public.json', JSON.stringify(ec.publicKey.export({ format: 'jwk' })));
  dir.write(
    'encrypted.pem',
    rsa.privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }).toString(),
  );
});
afterAll(() => dir.remove());

describe('readTlsIdentity', () => {
  it.each([
    // certificate and key in two files, or in one
    [{ cert: 'one.pem', key: 'one.key' }, null],
    [{ cert: 'both.pem' }, null],
    // an encrypted key with its passphrase
    [{ cert: 'locked.pem', key: 'locked.key', passphrase: 'pw-1' }, null],
    // a key that is another certificate's
    [{ cert: 'one.pem', key: 'two.key' }, '"two.key": the private key does not belong to the certificate "one.pem"'],
    // an encrypted key without (or with the wrong) passphrase
    [
      { cert: 'locked.pem', key: 'locked.key' },
      '"locked.key": cannot decrypt the private key (wrong or missing passphrase',
    ],
    [{ cert: 'locked.pem', key: 'locked.key', passphrase: 'nope' }, '"locked.key": cannot decrypt the private key'],
    // a certificate file without its key, and no key given
    [{ cert: 'one.pem' }, '"one.pem": no private key in it (give the key file too: key / --key)'],
    // not PEM at all; no such file
    [{ cert: 'junk.pem', key: 'one.key' }, '"junk.pem": no PEM certificate in it'],
    [{ cert: 'one.pem', key: 'missing.key' }, '"missing.key": no such file'],
    // a PKCS#12 file that is not one
    [{ pfx: 'junk.p12' }, '"junk.p12": not a PKCS#12 (.pfx/.p12) file'],
  ])('%j → %s', (setting, reason) => {
    const read = readTlsIdentity(dir.path, setting);
    if (reason === null) expect(read.ok, JSON.stringify(read)).toBe(true);
    else {
      expect(read.ok).toBe(false);
      expect(!read.ok && read.reason).toContain(reason);
      expect(!read.ok && read.reason).not.toMatch(/[A-Za-z0-9+/]{40,}/); // never the file's contents
    }
  });
});

describe('readAssertionKey', () => {
  it.each([
    // PKCS#1 RSA → RS256; SEC1 P-256 → ES256; a JWK's own alg and kid
    ['rsa.pem', null, { format: 'pem', alg: 'RS256', kid: null }],
    ['rsa.pem', 'PS256', { format: 'pem', alg: 'PS256', kid: null }],
    ['ec.pem', null, { format: 'pem', alg: 'ES256', kid: null }],
    ['ps.json', null, { format: 'jwk', alg: 'PS256', kid: 'kid-7' }],
    // the profile's algorithm wins over the JWK's
    ['ps.json', 'RS256', { format: 'jwk', alg: 'RS256', kid: 'kid-7' }],
  ] as const)('%s (asked %s) → %j', (file, wanted, expected) => {
    const read = readAssertionKey(dir.path, file, wanted);
    expect(read.ok && { format: read.value.format, alg: read.value.alg, kid: read.value.kid }).toEqual(expected);
  });

  it.each([
    ['p384.pem', null, '"p384.pem": a ec key on secp384r1: expected an RSA or P-256 key'],
    ['ec.pem', 'RS256', '"ec.pem": RS256 does not fit this ec key (it signs ES256)'],
    ['public.json', null, '"public.json": not a usable private key'],
    [
      'encrypted.pem',
      null,
      '"encrypted.pem": an encrypted key (private_key_jwt keys must be unencrypted PEM or a JWK)',
    ],
    ['one.pem', null, '"one.pem": no PEM private key in it'],
    ['gone.pem', null, '"gone.pem": no such file'],
  ] as const)('%s → %s', (file, wanted, reason) => {
    const read = readAssertionKey(dir.path, file, wanted);
    expect(!read.ok && read.reason).toContain(reason);
  });
});

describe('a plan with credentials', () => {
  const profile = (): Profile => ({
    target: 'https://api.example',
    auth: { clientAuth: 'private_key_jwt' },
    http: { cert: 'locked.pem', key: 'locked.key', keyPassphrase: 'pw-1' },
    clients: {
      list: [
        { id: 'a', privateKey: 'rsa.pem', signingSecret: 'sig-a', cert: 'both.pem' },
        { id: 'b', privateKey: 'ps.json' },
      ],
    },
    scenarios: [{ steps: [{ method: 'ping' }] }],
    phases: [{ duration: '1s', rate: 1 }],
  });

  it('carries every key and secret for the redactor, and none of them into the result file’s config', () => {
    const plan = buildPlan(profile(), { source: `${dir.path}/p.json` });
    const secrets = planSecrets(plan);
    expect(secrets).toContain('pw-1');
    expect(secrets).toContain('sig-a');
    expect(secrets.some((s) => s.startsWith('-----BEGIN') && s.includes('PRIVATE KEY'))).toBe(true);
    const config = JSON.stringify(describePlan(plan));
    for (const secret of secrets.filter((s) => s.length >= 4)) expect(config).not.toContain(secret);
    expect(describePlan(plan).clients).toEqual([
      { id: 'a', secret: '[redacted]', weight: 1, certificate: 'both.pem', signingKey: 'PEM key, RS256' },
      { id: 'b', secret: '[redacted]', weight: 1, signingKey: 'JWK key, PS256' },
    ]);
  });
});
