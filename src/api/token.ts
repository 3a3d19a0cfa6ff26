/**
 * The token request (OAuth 2.0 client credentials, RFC 6749 §4.4): a form-encoded POST to
 * {base}/api/{tokenMethod} — the one request not sent as JSON. Accepts the token response either
 * inside the API envelope or as bare RFC 6749 JSON. Never puts a secret or token in `detail`.
 */
import { registerSecret } from '../util/redact.ts';
import { sanitizeText } from '../util/sanitize.ts';
import {
  assertionKeyObject,
  CLIENT_ASSERTION_TYPE,
  signClientAssertion,
  tokenEndpointUrl,
  type AssertionKey,
} from './client-assertion.ts';
import { normalizeErrorCode } from './envelope.ts';
import { certificateHint } from './certificate-hint.ts';
import { callApi, headerValue, type ApiCall, type ApiReply, type ApiTransport } from './http-call.ts';
import { contentEncodingOutcome } from './outcome.ts';
import { retryAfterSeconds } from './retry-after.ts';

/** How a client authenticates its token request: client_secret_post, client_secret_basic, or private_key_jwt. */
export type ClientAuthMethod = 'post' | 'basic' | 'private_key_jwt';

export interface TokenRequest {
  readonly baseUrl: string;
  readonly tokenMethod: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** client_secret_post (form fields), client_secret_basic (Authorization: Basic) or private_key_jwt (a signed assertion). */
  readonly clientAuth: ClientAuthMethod;
  /** private_key_jwt: the client's signing key. */
  readonly assertionKey?: AssertionKey | null;
  readonly scope?: string | null;
  readonly extraFields?: Readonly<Record<string, string>>;
  /** The request's overall deadline (ms); default callApi's. */
  readonly timeoutMs?: number;
  /** Aborting cancels the request at once (a stop). */
  readonly signal?: AbortSignal;
  /** Extra headers of each attempt (asked anew per attempt: trace context). */
  readonly headers?: () => Readonly<Record<string, string>>;
  /** Told of each attempt's request and reply (`--http-debug`). */
  readonly onExchange?: (call: ApiCall, reply: ApiReply) => void;
}

export type TokenResult =
  | {
      readonly ok: true;
      readonly accessToken: string;
      /** The token's lifetime: a positive `expires_in`, or null (none given, or none usable). */
      readonly expiresInS: number | null;
      /** An `expires_in` that is no positive number of seconds (0, -5, "soon"), as text; null otherwise. */
      readonly unusableExpiresIn: string | null;
      readonly shape: 'envelope' | 'bare';
      readonly latencyUs: number;
    }
  | {
      readonly ok: false;
      readonly outcome: string;
      readonly status: number;
      readonly detail: string;
      readonly latencyUs: number;
      /** A 429's Retry-After in the driver's compact form (seconds; -1 absent, -2 unusable); absent on other failures. */
      readonly retryAfterS?: number;
    };

/** application/x-www-form-urlencoded encoding of one value (RFC 6749 §2.3.1 for Basic credentials). */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function tokenForm(req: TokenRequest, assertion: string | null): string {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (req.scope) form.set('scope', req.scope);
  for (const [name, value] of Object.entries(req.extraFields ?? {})) form.set(name, value);
  if (req.clientAuth === 'post') {
    form.set('client_id', req.clientId);
    form.set('client_secret', req.clientSecret);
  } else if (assertion !== null) {
    // RFC 7521 §4.2: client_id is optional beside an assertion; sent, it names the client plainly.
    form.set('client_id', req.clientId);
    form.set('client_assertion_type', CLIENT_ASSERTION_TYPE);
    form.set('client_assertion', assertion);
  }
  return form.toString();
}

/** A fresh signed assertion for a private_key_jwt token request, or why none could be made. */
async function clientAssertion(req: TokenRequest): Promise<{ assertion: string } | { problem: string }> {
  if (req.assertionKey == null)
    return {
      problem:
        "private_key_jwt needs the client's private key (clients.list[].privateKey or clients.privateKeyPattern)",
    };
  try {
    const key = req.assertionKey;
    const assertion = await signClientAssertion(key, assertionKeyObject(key), {
      clientId: req.clientId,
      audience: tokenEndpointUrl(req.baseUrl, req.tokenMethod),
    });
    return { assertion };
  } catch (err) {
    return { problem: `cannot sign the client assertion: ${sanitizeText((err as Error).message, 120)}` };
  }
}

/** `expires_in` read: a positive number of seconds, or — when it is given but no such number — its text. */
function expiresIn(value: unknown): Pick<Extract<TokenResult, { ok: true }>, 'expiresInS' | 'unusableExpiresIn'> {
  if (value === undefined || value === null) return { expiresInS: null, unusableExpiresIn: null };
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0)
    return { expiresInS: seconds, unusableExpiresIn: null };
  return { expiresInS: null, unusableExpiresIn: sanitizeText(JSON.stringify(value) ?? '', 40) };
}

type TokenBody =
  { shape: 'envelope' | 'bare'; fields: Record<string, unknown> } | { errorCode: string; description: string };

/** Find the token fields (or the OAuth error) in an enveloped or bare body. */
function readTokenBody(parsed: Record<string, unknown>): TokenBody | null {
  const describe = (obj: Record<string, unknown>): string =>
    typeof obj.error_description === 'string' ? sanitizeText(obj.error_description, 120) : '';
  if (parsed.status === 'success' && parsed.data !== null && typeof parsed.data === 'object')
    return { shape: 'envelope', fields: parsed.data as Record<string, unknown> };
  if (parsed.status === 'error' && typeof parsed.error === 'string')
    return { errorCode: normalizeErrorCode(parsed.error), description: describe(parsed) };
  if (typeof parsed.access_token === 'string') return { shape: 'bare', fields: parsed };
  if (typeof parsed.error === 'string')
    return { errorCode: normalizeErrorCode(parsed.error), description: describe(parsed) };
  return null;
}

/**
 * What an access token may hold to be sent as `Authorization: Bearer <token>`: visible ASCII. A CR
 * or LF (or any control character) would fail every request as an invalid header (RFC 6750's
 * b64token is stricter still; servers issuing other visible characters are common enough to allow).
 */
const SENDABLE_TOKEN = /^[\x21-\x7e]+$/;

export async function requestToken(transport: ApiTransport, req: TokenRequest): Promise<TokenResult> {
  // Known before the server can echo them: every later output of this thread is scrubbed of them.
  registerSecret(req.clientSecret);
  const basic = Buffer.from(`${formEncode(req.clientId)}:${formEncode(req.clientSecret)}`).toString('base64');
  if (req.clientAuth === 'basic') registerSecret(basic);
  let assertion: string | null = null;
  if (req.clientAuth === 'private_key_jwt') {
    const made = await clientAssertion(req);
    if ('problem' in made)
      return { ok: false, outcome: 'error:client_assertion', status: 0, detail: made.problem, latencyUs: 0 };
    assertion = made.assertion;
    // Before the server can echo it: an assertion is a credential while it lives.
    registerSecret(assertion);
  }
  const call: ApiCall = {
    baseUrl: req.baseUrl,
    method: req.tokenMethod,
    body: tokenForm(req, assertion),
    contentType: 'application/x-www-form-urlencoded',
    headers: { accept: 'application/json', ...req.headers?.() },
    ...(req.clientAuth === 'basic' ? { authorization: `Basic ${basic}` } : {}),
    timeoutMs: req.timeoutMs,
    signal: req.signal,
    bodyCapBytes: 64 * 1024,
    maxBodyBytes: 1024 * 1024,
  };
  const reply = await callApi(transport, call);
  req.onExchange?.(call, reply);
  const latencyUs = Math.round((reply.doneAtMs - reply.sentAtMs) * 1000);
  const retryAfter =
    reply.status === 429 ? { retryAfterS: retryAfterSeconds(reply.headers['retry-after'], Date.now()) } : {};
  const fail = (outcome: string, detail: string): TokenResult => ({
    ok: false,
    outcome,
    status: reply.status,
    detail,
    latencyUs,
    ...retryAfter,
  });
  if (reply.transportError !== null)
    return fail(
      reply.transportError,
      `token request failed: ${reply.transportError}${await certificateHint(req.baseUrl, reply.transportError)}`,
    );
  const contentEncoding = headerValue(reply.headers, 'content-encoding');
  const encoded = contentEncodingOutcome(contentEncoding);
  if (encoded !== null)
    return fail(
      encoded,
      `token response (HTTP ${reply.status}) is encoded with Content-Encoding ${sanitizeText(contentEncoding!, 40)}, which rpcload does not decode`,
    );

  let parsed: unknown = null;
  try {
    parsed = JSON.parse(reply.body.toString('utf8'));
  } catch {
    // fall through: not JSON
  }
  const body =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? readTokenBody(parsed as Record<string, unknown>)
      : null;
  const ok2xx = reply.status >= 200 && reply.status < 300;
  if (body === null) {
    return fail(
      ok2xx ? 'envelope_violation' : `http:${reply.status}`,
      `token response (HTTP ${reply.status}) is neither a token nor an OAuth error`,
    );
  }
  if ('errorCode' in body) {
    return fail(
      `error:${body.errorCode}`,
      `token request refused (HTTP ${reply.status}): ${body.errorCode}${body.description ? ` — ${body.description}` : ''}`,
    );
  }
  const accessToken = body.fields.access_token;
  if (typeof accessToken === 'string') registerSecret(accessToken);
  if (!ok2xx || typeof accessToken !== 'string' || accessToken.length === 0) {
    return fail(
      ok2xx ? 'envelope_violation' : `http:${reply.status}`,
      `token response (HTTP ${reply.status}) has no access_token`,
    );
  }
  if (!SENDABLE_TOKEN.test(accessToken)) {
    return fail(
      'envelope_violation',
      `token response (HTTP ${reply.status}) has an access_token with a control character, space or non-ASCII character in it: it cannot be sent in an Authorization header`,
    );
  }
  const tokenType = body.fields.token_type;
  if (typeof tokenType === 'string' && tokenType.toLowerCase() !== 'bearer') {
    return fail(
      'error:unsupported_token_type',
      `token_type ${JSON.stringify(sanitizeText(tokenType, 20))} is not Bearer`,
    );
  }
  return { ok: true, accessToken, ...expiresIn(body.fields.expires_in), shape: body.shape, latencyUs };
}

/** How long a token request refused with 429 is retried: the identity provider rate-limits token requests too. */
export interface TokenRetryPolicy {
  /** Token requests in all, the first included. */
  readonly maxAttempts: number;
  /** The longest Retry-After waited for (s); a longer one ends the retries at once. */
  readonly maxWaitS: number;
}

export const TOKEN_RETRY: TokenRetryPolicy = { maxAttempts: 4, maxWaitS: 30 };
/** The wait after a 429 without a usable Retry-After (s). */
const DEFAULT_TOKEN_RETRY_WAIT_S = 1;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * requestToken, honouring a 429's Retry-After (many clients fetching tokens at once is what an
 * identity provider rate-limits): waits what it asks — a second when it says nothing usable — and
 * asks again, at most `maxAttempts` times and never waiting longer than `maxWaitS` at once.
 * `onRefused` is told of each refusal that is retried (so it can be counted); the result is the
 * last request's, its detail counting the refusals when the provider kept refusing.
 */
export async function requestTokenHonouringRetryAfter(
  transport: ApiTransport,
  req: TokenRequest,
  onRefused: (refusal: TokenResult) => void = () => undefined,
  policy: TokenRetryPolicy = TOKEN_RETRY,
): Promise<TokenResult> {
  let waitedS = 0;
  for (let attempt = 1; ; attempt++) {
    const result = await requestToken(transport, req);
    if (result.ok || result.status !== 429 || req.signal?.aborted) return result;
    const asked = result.retryAfterS ?? -1;
    const refusedTimes = `${attempt} time${attempt === 1 ? '' : 's'}`;
    if (asked > policy.maxWaitS)
      return {
        ...result,
        detail: `${result.detail}; refused with HTTP 429 ${refusedTimes}, the last asking to wait ${asked} s — longer than rpcload waits for a token (${policy.maxWaitS} s)`,
      };
    if (attempt >= policy.maxAttempts)
      return {
        ...result,
        detail: `${result.detail}; the identity provider refused ${refusedTimes} with HTTP 429 (Retry-After honoured, ${waitedS} s waited)`,
      };
    onRefused(result);
    const waitS = asked >= 0 ? asked : DEFAULT_TOKEN_RETRY_WAIT_S;
    waitedS += waitS;
    await pause(waitS * 1000, req.signal);
  }
}
