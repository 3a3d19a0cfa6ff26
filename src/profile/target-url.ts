/**
 * What a target URL may be: http or https, without credentials (`user:password@` would never be
 * sent — the API authenticates with bearer tokens — and would be printed in every message that
 * names the target), and without control characters (new URL() silently drops CR/LF and tabs,
 * while the text as given would break every request). A refusal never shows the credentials.
 */
import { REDACTED } from '../util/redact.ts';
import { describeFound } from './problems.ts';

/** C0 and C1 control characters (CR, LF, tab, NUL, ESC, …) and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `text` with whatever precedes an `@` in its authority replaced (`http://[redacted]@host`), for messages. */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/^([^:/?#]+:\/\/)[^?#]*@/, `$1${REDACTED}@`);
}

/** Why `value` cannot be a target ("expected …, found …"), or null when it can. */
export function targetUrlProblem(value: string): string | null {
  const found = describeFound(withoutUrlCredentials(value), '');
  if (CONTROL.test(value)) return `expected a URL without control characters (e.g. CR/LF), found ${found}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `expected an http:// or https:// URL, found ${found}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `expected an http:// or https:// URL, found ${found}`;
  if (url.username !== '' || url.password !== '')
    return `expected a URL without user:password@ (credentials in a target URL are never sent: the API authenticates with bearer tokens), found ${found}`;
  return null;
}
