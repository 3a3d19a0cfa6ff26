/**
 * `--http-debug[=N]`: the first N request/response exchanges of the load, written out in full —
 * what a user needs while writing a profile against a new API. Credentials never appear: the
 * Authorization header (and any header or JSON field whose name says secret, token, password …)
 * is replaced by [redacted], and so is every secret and token this thread knows (client secrets,
 * issued tokens, Bearer/Basic credentials) wherever it occurs — also when the server echoes it
 * back. Bodies are cut at 2 KB; control characters are escaped, so a hostile server cannot move
 * the cursor, retitle the window or clear the screen of the terminal reading it.
 *
 * Off, it costs the engine one null check per finished request (and the request one boolean
 * check per response head); on, it only works on the first N.
 */
import { headerValue, type ApiCall, type ApiReply } from '../api/http-call.ts';
import { isSecretKey, REDACTED, redactSecrets, redactText } from '../util/redact.ts';

/** Exchanges printed by a bare `--http-debug`. */
export const DEFAULT_HTTP_DEBUG_EXCHANGES = 10;
/** Each body is cut after this many characters of its text. */
export const HTTP_DEBUG_BODY_LIMIT = 2048;

/** What the debug printer reads of one finished request (InFlightRequest has it all). */
export interface DebuggedExchange {
  readonly head: {
    readonly method?: string;
    readonly path: string;
    readonly headers: readonly string[];
    /** Sent after `headers` (the load's requests carry it apart); null for none. */
    readonly traceparent: string | null;
    readonly body: Buffer;
  };
  /** 0: no response head came. */
  readonly status: number;
  readonly responseHeaders: readonly (Buffer | string)[] | null;
  readonly contentEncoding: string | undefined;
  readonly bodyBytes: number;
  readonly error: Error | null;
  responseBody(): Buffer | null;
}

export class HttpDebug {
  private printed = 0;

  constructor(
    private readonly limit: number,
    /** Where the text goes (stderr). */
    private readonly write: (text: string) => void,
  ) {}

  /** Print one finished exchange (the first N only). */
  exchange(request: DebuggedExchange): void {
    if (this.printed >= this.limit) return;
    this.printed++;
    this.write(formatExchange(request, `${this.printed}/${this.limit}`));
  }

  /** A token request and its reply (made apart from the load's engine, through callApi). */
  readonly apiExchange = (call: ApiCall, reply: ApiReply): void => {
    if (this.printed < this.limit) this.exchange(apiCallExchange(call, reply));
  };
}

/** A callApi request and reply as the printer reads an exchange. */
function apiCallExchange(call: ApiCall, reply: ApiReply): DebuggedExchange {
  const base = new URL(call.baseUrl).pathname.replace(/\/+$/, '');
  const headers = [
    ...['content-type', call.contentType ?? 'application/json'],
    ...(call.authorization === undefined ? [] : ['authorization', call.authorization]),
    ...Object.entries(call.headers ?? {}).flat(),
  ];
  const responseHeaders = Object.entries(reply.headers).flatMap(([name, value]) =>
    value === undefined ? [] : (Array.isArray(value) ? value : [value]).flatMap((v) => [name, v]),
  );
  return {
    head: {
      method: call.httpMethod ?? 'POST',
      path: call.path ?? `${base}/api/${call.method}`,
      headers,
      traceparent: null,
      body: Buffer.from(call.body ?? ''),
    },
    status: reply.status,
    responseHeaders,
    contentEncoding: headerValue(reply.headers, 'content-encoding'),
    bodyBytes: reply.bodyBytes,
    error: reply.transportError === null ? null : new Error(reply.transportError),
    responseBody: () => (reply.body.length === 0 ? null : reply.body),
  };
}

/** The exchange as text: a `>` block for the request, a `<` block for the response. */
export function formatExchange(request: DebuggedExchange, label: string): string {
  const { head } = request;
  const lines = [`── http-debug ${label} ──`, `> ${head.method ?? 'POST'} ${escapeControls(redactText(head.path))}`];
  const headers = [
    ...pairs(head.headers),
    ...(head.traceparent === null ? [] : [['traceparent', head.traceparent] as const]),
  ];
  for (const [name, value] of headers) lines.push(`> ${headerLine(name, value)}`);
  lines.push(`> ${bodyText(head.body, undefined)}`);
  if (request.status === 0) {
    lines.push(`< no response: ${escapeControls(redactText(request.error?.message ?? 'none'))}`);
  } else {
    lines.push(`< ${request.status}`);
    for (const [name, value] of pairs(request.responseHeaders ?? [])) lines.push(`< ${headerLine(name, value)}`);
    const body = request.responseBody();
    lines.push(`< ${body === null ? '(empty body)' : bodyText(body, request.contentEncoding, request.bodyBytes)}`);
    if (request.error !== null) lines.push(`< (then failed: ${escapeControls(redactText(request.error.message))})`);
  }
  return `${lines.join('\n')}\n`;
}

/** A flat [name, value, name, value, …] header list as pairs (undici's raw headers are Buffers). */
function pairs(flat: readonly (Buffer | string)[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!.toString(), flat[i + 1]!.toString()]);
  return out;
}

function headerLine(name: string, value: string): string {
  const shown =
    isSecretKey(name) || /^(proxy-authorization|cookie|set-cookie)$/i.test(name) ? REDACTED : redactText(value);
  return `${escapeControls(name)}: ${escapeControls(shown)}`;
}

/** A body as text: JSON with secret-named fields redacted, known secrets scrubbed, cut at 2 KB, controls escaped. */
function bodyText(body: Buffer, encoding: string | undefined, totalBytes = body.length): string {
  if (body.length === 0) return '(empty body)';
  if (encoding !== undefined && encoding !== 'identity')
    return `(${totalBytes} bytes, content-encoding ${escapeControls(encoding)})`;
  const text = body.toString('utf8');
  let shown: string;
  try {
    shown = JSON.stringify(redactSecrets(JSON.parse(text) as unknown));
  } catch {
    shown = redactFormFields(redactText(text));
  }
  const cut = shown.length > HTTP_DEBUG_BODY_LIMIT;
  const more = totalBytes > body.length || cut ? ` … (${totalBytes} bytes in all)` : '';
  return `${escapeControls(cut ? shown.slice(0, HTTP_DEBUG_BODY_LIMIT) : shown)}${more}`;
}

/** `client_secret=…&access_token=…` in a form-encoded body: the values of secret-named fields redacted. */
function redactFormFields(text: string): string {
  return text.replace(/(^|&)([^=&\s]+)=([^&]*)/g, (whole, lead: string, name: string) =>
    isSecretKey(decodeURIComponentSafe(name)) ? `${lead}${name}=${REDACTED}` : whole,
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Control characters (C0 but tab, DEL, C1), line and paragraph separators and bidi overrides as
 * `\u….` escapes: the text cannot drive the terminal, nor reorder what is shown.
 */
export function escapeControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
