/**
 * Files a profile refers to (secrets file, CA certificate), read relative to the profile's
 * directory. Failures come back as a short reason for a problem line, never as a throw, and never
 * quote file contents (they may be secrets).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;

/**
 * Why `text` is not a bundle of PEM certificates (one line), or null when every block parses. CA
 * files given to rpcload (`--ca`, a profile's `http.ca`) must hold PEM certificates: anything else
 * would be accepted by the TLS layer only to fail, or be silently ignored, on the first handshake
 * — long after the run started.
 */
function pemCertificateProblem(text: string): string | null {
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) return 'not a PEM certificate (expected a "-----BEGIN CERTIFICATE-----" block)';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${i + 1} of ${blocks.length} is not a valid PEM certificate`;
    }
  }
  return null;
}

export type FileRead<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'a directory',
};

/** Why a file could not be read, in a few words ("no such file"). */
export function fileErrorReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  return REASONS[code] ?? (code || 'unreadable');
}

/** Read a text file; `relativePath` is resolved against `baseDir`. */
function readRelativeFile(baseDir: string, relativePath: string): FileRead<string> {
  try {
    return { ok: true, value: readFileSync(resolve(baseDir, relativePath), 'utf8') };
  } catch (err) {
    return { ok: false, reason: `${JSON.stringify(relativePath)}: ${fileErrorReason(err)}` };
  }
}

/** A secrets file: a JSON object of client id → secret string. */
export function readSecretsFile(baseDir: string, relativePath: string): FileRead<ReadonlyMap<string, string>> {
  const read = readRelativeFile(baseDir, relativePath);
  if (!read.ok) return read;
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.value);
  } catch {
    return { ok: false, reason: `${JSON.stringify(relativePath)}: not valid JSON` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, reason: `${JSON.stringify(relativePath)}: not a JSON object` };
  }
  const secrets = new Map<string, string>();
  for (const [id, secret] of Object.entries(parsed)) {
    if (typeof secret !== 'string')
      return { ok: false, reason: `${JSON.stringify(relativePath)}: the value of ${JSON.stringify(id)} is not a string` };
    if (secret !== '') secrets.set(id, secret);
  }
  return { ok: true, value: secrets };
}

/** The `http.ca` setting: inline PEM, or a PEM file path. */
export function readCa(baseDir: string, setting: string): FileRead<string> {
  const inline = setting.trimStart().startsWith('-----BEGIN');
  const read = inline ? { ok: true as const, value: setting } : readRelativeFile(baseDir, setting);
  if (!read.ok) return read;
  const problem = pemCertificateProblem(read.value);
  return problem === null ? read : { ok: false, reason: `${inline ? 'inline PEM' : JSON.stringify(setting)}: ${problem}` };
}
