/**
 * Files a profile refers to (secrets file, CA certificate), read relative to the profile's
 * directory. Failures come back as a short reason for a problem line, never as a throw, and never
 * quote file contents (they may be secrets).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pemCertificateProblem } from '../util/pem.ts';

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
      return {
        ok: false,
        reason: `${JSON.stringify(relativePath)}: the value of ${JSON.stringify(id)} is not a string`,
      };
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
  return problem === null
    ? read
    : { ok: false, reason: `${inline ? 'inline PEM' : JSON.stringify(setting)}: ${problem}` };
}
