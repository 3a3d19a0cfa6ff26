/**
 * The decision on a token request (RFC 6749 client credentials), apart from HTTP: which client it
 * authenticates, or which error it earns.
 */
import { CLIENT_ASSERTION_TYPE } from '../../api/client-assertion.ts';
import type { AssertionVerdict } from './client-assertion.ts';
import type { ClientRegistry } from './clients.ts';

/** RFC 6749 §5.2 error codes the token request can produce. */
export type TokenError = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type';

export type TokenDecision =
  | { readonly ok: true; readonly clientId: string }
  /**
   * `basicUsed`: the client tried the Authorization header, so a 401 must carry a Basic challenge;
   * `description`: why, when it helps the client's owner (a refused client assertion).
   */
  | { readonly ok: false; readonly error: TokenError; readonly basicUsed: boolean; readonly description?: string };

/** Form parameters that must not repeat (RFC 6749 §3.2: "MUST NOT be included more than once"). */
const SINGLE_PARAMS = [
  'grant_type',
  'client_id',
  'client_secret',
  'client_assertion',
  'client_assertion_type',
  'refresh_token',
  'scope',
];

/** Does the form authenticate the client with an assertion (private_key_jwt)? */
export function usesClientAssertion(form: URLSearchParams): boolean {
  return form.has('client_assertion') || form.has('client_assertion_type');
}

/** `application/x-www-form-urlencoded` decoding of one Basic credential half (RFC 6749 §2.3.1). */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** The client ID and secret of an `Authorization: Basic …` header, or undefined when malformed. */
export function parseBasicCredentials(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (match === null) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  const id = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  return id === undefined || secret === undefined ? undefined : { id, secret };
}

/**
 * Decide a client-credentials token request (RFC 6749 §4.4) from its form and Authorization
 * header. Client authentication is one of client_secret_basic, client_secret_post or a client
 * assertion (RFC 7521 §4.2, checked beforehand into `assertion`), never two (§2.3). The client is
 * authenticated before the grant is looked at, as §5.2 orders the errors. `refresh_token` is a
 * recognised grant, but no refresh token is ever issued, so every one presented is an invalid_grant.
 */
export function decideTokenRequest(
  form: URLSearchParams,
  authorization: string | undefined,
  clients: ClientRegistry,
  assertion: AssertionVerdict | null = null,
): TokenDecision {
  const basicUsed = authorization !== undefined;
  const fail = (error: TokenError, description?: string): TokenDecision => ({
    ok: false,
    error,
    basicUsed,
    ...(description === undefined ? {} : { description }),
  });

  if (SINGLE_PARAMS.some((name) => form.getAll(name).length > 1)) return fail('invalid_request');
  const grantType = form.get('grant_type');
  if (grantType === null || grantType === '') return fail('invalid_request');

  const postId = form.get('client_id');
  const postSecret = form.get('client_secret');
  const asserted = usesClientAssertion(form);
  if (basicUsed && (postId !== null || postSecret !== null || asserted)) return fail('invalid_request');

  let clientId: string;
  if (asserted) {
    if (postSecret !== null)
      return fail('invalid_request', 'a client secret and a client assertion: one client authentication only');
    if (form.get('client_assertion_type') !== CLIENT_ASSERTION_TYPE || !form.get('client_assertion'))
      return fail('invalid_client', `expected client_assertion_type ${CLIENT_ASSERTION_TYPE} and a client_assertion`);
    if (assertion === null || !assertion.ok)
      return fail(
        'invalid_client',
        assertion?.ok === false ? assertion.reason : 'the client assertion was not checked',
      );
    clientId = assertion.clientId;
  } else {
    let credentials: { id: string; secret: string } | undefined;
    if (basicUsed) credentials = parseBasicCredentials(authorization);
    else if (postId !== null && postSecret !== null) credentials = { id: postId, secret: postSecret };
    if (credentials === undefined || !clients.verify(credentials.id, credentials.secret)) return fail('invalid_client');
    clientId = credentials.id;
  }

  if (grantType === 'client_credentials') return { ok: true, clientId };
  if (grantType === 'refresh_token') return fail(form.has('refresh_token') ? 'invalid_grant' : 'invalid_request');
  return fail('unsupported_grant_type');
}
