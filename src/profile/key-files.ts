/**
 * Client credentials kept in files: TLS client certificates with their keys (PEM, or a PKCS#12
 * bundle) and private_key_jwt signing keys (PEM or JWK). Each is read and checked here, once, before
 * any load — a key that does not belong to its certificate, a wrong passphrase or an unreadable key
 * is one short reason naming the file, never a failed handshake in the middle of a run. Reasons
 * never quote file contents (they are secrets).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assertionAlgFor, assertionKeyObject, type AssertionAlg, type AssertionKey } from '../api/client-assertion.ts';
import type { ClientTlsIdentity } from '../api/dispatcher.ts';
import { certificateBlocks, privateKeyBlock } from '../util/pem.ts';
import { fileErrorReason, type FileRead } from './profile-files.ts';

/** Where a client certificate comes from: PEM certificate (+ key, which may sit in the same file), or a PKCS#12 file. */
export interface TlsIdentitySetting {
  /** PEM file path (relative to `baseDir`) or inline PEM; may hold the private key too. */
  readonly cert?: string;
  /** PEM file path or inline PEM of the certificate's private key. */
  readonly key?: string;
  /** PKCS#12 (.pfx/.p12) file path. */
  readonly pfx?: string;
  /** Passphrase of an encrypted key or PKCS#12 file. */
  readonly passphrase?: string;
}

const isInlinePem = (setting: string): boolean => setting.trimStart().startsWith('-----BEGIN');
const shown = (setting: string): string => (isInlinePem(setting) ? 'inline PEM' : JSON.stringify(setting));

function readBytes(baseDir: string, path: string): FileRead<Buffer> {
  try {
    return { ok: true, value: readFileSync(resolve(baseDir, path)) };
  } catch (err) {
    return { ok: false, reason: `${JSON.stringify(path)}: ${fileErrorReason(err)}` };
  }
}

function readPem(baseDir: string, setting: string): FileRead<string> {
  if (isInlinePem(setting)) return { ok: true, value: setting };
  const read = readBytes(baseDir, setting);
  return read.ok ? { ok: true, value: read.value.toString('utf8') } : read;
}

/** OpenSSL's complaint about a certificate and key, in words naming the files. */
function secureContextReason(err: unknown, certShown: string, keyShown: string): string {
  const { code = '', message = '' } = err as NodeJS.ErrnoException;
  if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH')
    return `${keyShown}: the private key does not belong to the certificate ${certShown}`;
  if (code === 'ERR_OSSL_BAD_DECRYPT' || /bad decrypt|interrupted or cancelled/.test(message))
    return `${keyShown}: cannot decrypt the private key (wrong or missing passphrase: http.keyPassphrase, --key-passphrase-env)`;
  if (/mac verify failure/.test(message))
    return `${keyShown}: cannot open the PKCS#12 file (wrong or missing passphrase)`;
  if (/not enough data|wrong tag|header too long|asn1/i.test(message))
    return `${keyShown}: not a PKCS#12 (.pfx/.p12) file`;
  return `${keyShown}: not a usable private key for the certificate ${certShown} (${code || message.split('\n')[0]})`;
}

/**
 * Read and check a client certificate: the PEM certificate and its key (`key`, or the private key
 * block in the certificate's own file), or a PKCS#12 file. Fails with one reason naming the file.
 */
export function readTlsIdentity(baseDir: string, setting: TlsIdentitySetting): FileRead<ClientTlsIdentity> {
  // node:tls loaded here, by the profiles that name a certificate: not by every start-up (~13 ms).
  const { createSecureContext } = process.getBuiltinModule('node:tls');
  const passphrase =
    setting.passphrase === undefined || setting.passphrase === '' ? {} : { passphrase: setting.passphrase };
  if (setting.pfx !== undefined) {
    const read = readBytes(baseDir, setting.pfx);
    if (!read.ok) return read;
    try {
      createSecureContext({ pfx: read.value, ...passphrase });
    } catch (err) {
      return { ok: false, reason: secureContextReason(err, JSON.stringify(setting.pfx), JSON.stringify(setting.pfx)) };
    }
    return { ok: true, value: { pfx: read.value.toString('base64'), ...passphrase, source: setting.pfx } };
  }
  if (setting.cert === undefined) return { ok: false, reason: 'no certificate given (cert, or pfx)' };
  const certRead = readPem(baseDir, setting.cert);
  if (!certRead.ok) return certRead;
  const certs = certificateBlocks(certRead.value);
  if (certs.length === 0)
    return {
      ok: false,
      reason: `${shown(setting.cert)}: no PEM certificate in it (expected a "-----BEGIN CERTIFICATE-----" block)`,
    };
  const keySetting = setting.key ?? setting.cert;
  const keyRead = setting.key === undefined ? certRead : readPem(baseDir, setting.key);
  if (!keyRead.ok) return keyRead;
  const key = privateKeyBlock(keyRead.value);
  if (key === null)
    return {
      ok: false,
      reason:
        setting.key === undefined
          ? `${shown(setting.cert)}: no private key in it (give the key file too: key / --key)`
          : `${shown(keySetting)}: no PEM private key in it (expected a "-----BEGIN … PRIVATE KEY-----" block)`,
    };
  const cert = certs.join('\n');
  try {
    createSecureContext({ cert, key, ...passphrase });
  } catch (err) {
    return { ok: false, reason: secureContextReason(err, shown(setting.cert), shown(keySetting)) };
  }
  return {
    ok: true,
    value: { cert, key, ...passphrase, source: isInlinePem(setting.cert) ? 'inline PEM' : setting.cert },
  };
}

/**
 * Read and check a private_key_jwt signing key: a PEM private key, or a private JWK (JSON; its
 * `alg` and `kid` are used). `wanted` is the profile's algorithm (null = the key's natural one).
 */
export function readAssertionKey(baseDir: string, path: string, wanted: AssertionAlg | null): FileRead<AssertionKey> {
  const read = readBytes(baseDir, path);
  if (!read.ok) return read;
  const text = read.value.toString('utf8');
  const jwk = text.trimStart().startsWith('{');
  let kid: string | null = null;
  let jwkAlg: AssertionAlg | null = null;
  if (jwk) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { ok: false, reason: `${JSON.stringify(path)}: not valid JSON (expected a private JWK or a PEM key)` };
    }
    const fields = (parsed ?? {}) as { kid?: unknown; alg?: unknown };
    kid = typeof fields.kid === 'string' ? fields.kid : null;
    jwkAlg = fields.alg === 'RS256' || fields.alg === 'PS256' || fields.alg === 'ES256' ? fields.alg : null;
  } else if (privateKeyBlock(text) === null) {
    return {
      ok: false,
      reason: `${JSON.stringify(path)}: no PEM private key in it (expected a "-----BEGIN … PRIVATE KEY-----" block or a JWK)`,
    };
  }
  const format = jwk ? 'jwk' : 'pem';
  const keyText = jwk ? text : privateKeyBlock(text)!;
  let alg: ReturnType<typeof assertionAlgFor>;
  try {
    alg = assertionAlgFor(assertionKeyObject({ format, text: keyText }), wanted ?? jwkAlg);
  } catch (err) {
    const { code = '', message = '' } = err as NodeJS.ErrnoException;
    const encrypted = /ENCRYPTED/.test(text) || /passphrase/i.test(message);
    return {
      ok: false,
      reason: `${JSON.stringify(path)}: ${encrypted ? 'an encrypted key (private_key_jwt keys must be unencrypted PEM or a JWK)' : `not a usable private key (${code || message.split('\n')[0]})`}`,
    };
  }
  if (typeof alg !== 'string') return { ok: false, reason: `${JSON.stringify(path)}: ${alg.problem}` };
  return { ok: true, value: { format, text: keyText, alg, kid } };
}
