/**
 * Request signing: a user module (the profile's `sign`) exports one function that sees each API
 * request — HTTP method, path, headers, body bytes, client id and the client's signing secret — and
 * returns headers to add (an HMAC of the body and a timestamp, say). It runs on every request, in
 * every thread that sends load, so it is loaded where it runs. Whatever it throws or returns that is
 * not a headers object becomes a SignError: the request's outcome `sign:error`, never a crash.
 *
 * A `host` it returns (a signature over the host, as AWS SigV4's) is the request's Host: it replaces
 * the one the client would send. Headers that frame the message or the connection
 * (Content-Length, Transfer-Encoding, Connection and their like) are the HTTP client's own: a
 * module returning one is refused (SignError), whichever client sends the request, rather than
 * written beside the client's and desynchronising the request.
 */
import { pathToFileURL } from 'node:url';
import { describeError, RpcloadError } from '../errors.ts';

/** What the sign function is given. */
export interface SignInput {
  /** The HTTP method (POST). */
  readonly method: string;
  /** The request path, e.g. /api/items.list. */
  readonly path: string;
  /** The headers that will be sent (lower-case names): content-type, authorization. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body exactly as sent. */
  readonly body: Uint8Array;
  /** The client sending it; null for verify's requests made as no client (e.g. without a token). */
  readonly clientId: string | null;
  /** That client's signing secret (its own, else its client secret); null when clientId is null. */
  readonly signingSecret: string | null;
}

/** The user's function: headers to add, now or as a promise. */
export type SignFunction = (request: SignInput) => unknown;

/** A signing failure: the user function threw, or returned something other than a headers object. */
export class SignError extends Error {
  override readonly name = 'SignError';
}

/** RFC 9110 token characters: what a header name may be made of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Characters a header value must not hold (they would split or end the header block). */
const BAD_VALUE = /[\r\n\0]/;
/** Headers the HTTP client writes or acts on to frame the request and its connection (lower case). */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect']);

/** `added` checked and appended to `base` (an undici flat header list); throws SignError. */
function withAdded(base: readonly string[], added: unknown): string[] {
  if (added === null || typeof added !== 'object' || Array.isArray(added))
    throw new SignError(
      `the sign function returned ${added === null ? 'null' : Array.isArray(added) ? 'an array' : typeof added}, expected an object of header name → value`,
    );
  const out = [...base];
  for (const [name, value] of Object.entries(added as Record<string, unknown>)) {
    if (!HEADER_NAME.test(name))
      throw new SignError(`the sign function returned an invalid header name ${JSON.stringify(name.slice(0, 40))}`);
    if (typeof value !== 'string' || BAD_VALUE.test(value))
      throw new SignError(
        `the sign function returned an invalid value for header ${name} (expected a string without CR, LF or NUL)`,
      );
    const lower = name.toLowerCase();
    if (FRAMING.has(lower))
      throw new SignError(
        `the sign function returned a ${lower} header: the HTTP client frames the request itself ` +
          '(content-length, transfer-encoding, connection, keep-alive, upgrade and expect are its own)',
      );
    if (lower === 'host') removeHeader(out, lower); // one Host: the signed one
    out.push(name, value);
  }
  return out;
}

/** Drop every `lowerName` header of a flat list, in place. */
function removeHeader(list: string[], lowerName: string): void {
  for (let i = list.length - 2; i >= 0; i -= 2) if (list[i]!.toLowerCase() === lowerName) list.splice(i, 2);
}

function failure(err: unknown): SignError {
  return err instanceof SignError ? err : new SignError(`the sign function threw: ${describeError(err)}`);
}

/** A loaded sign module, ready to sign requests. */
export class RequestSigner {
  constructor(
    private readonly fn: SignFunction,
    /** The module's path, for messages. */
    readonly source: string,
  ) {}

  /**
   * The headers to send: `headers` (undici's flat list) plus the signature's. Synchronous when the
   * function is; a promise when it returns one. Throws (or rejects with) a SignError.
   */
  sign(input: Omit<SignInput, 'headers'>, headers: readonly string[]): string[] | Promise<string[]> {
    const named: Record<string, string> = {};
    for (let i = 0; i + 1 < headers.length; i += 2) named[headers[i]!] = headers[i + 1]!;
    let added: unknown;
    try {
      added = this.fn({ ...input, headers: named });
    } catch (err) {
      throw failure(err);
    }
    if (added !== null && typeof (added as { then?: unknown }).then === 'function')
      return Promise.resolve(added).then(
        (value) => withAdded(headers, value),
        (err: unknown) => Promise.reject(failure(err)),
      );
    return withAdded(headers, added);
  }
}

/** The function a module exports: its default export, or its only exported function. */
function exportedFunction(module: Record<string, unknown>): SignFunction | string {
  if (typeof module.default === 'function') return module.default as SignFunction;
  const functions = Object.entries(module).filter(([, value]) => typeof value === 'function');
  if (functions.length === 1) return functions[0]![1] as SignFunction;
  return functions.length === 0
    ? 'no exported function'
    : `${functions.length} exported functions (${functions.map(([name]) => name).join(', ')}) and no default export`;
}

/**
 * Import the sign module at `path` (absolute). Throws a one-line RpcloadError (exit 2) when it
 * cannot be imported or exports no single function.
 */
export async function loadRequestSigner(path: string, shownAs: string = path): Promise<RequestSigner> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (err) {
    throw new RpcloadError(
      'bad_profile',
      `sign module ${shownAs}: cannot import it: ${describeError(err).split('\n')[0]}`,
    );
  }
  const fn = exportedFunction(module);
  if (typeof fn === 'string')
    throw new RpcloadError(
      'bad_profile',
      `sign module ${shownAs}: expected a module exporting one function (its default export), found ${fn}`,
    );
  return new RequestSigner(fn, shownAs);
}
