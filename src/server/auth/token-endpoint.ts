/**
 * The reference server's token endpoint: client-credentials requests answered with a bearer
 * token or an RFC 6749 error.
 */
import type { TLSSocket } from 'node:tls';
import { mediaType, readBody, TOO_LARGE, utf8Text, type ServerRequest } from '../payload.ts';
import { JSON_TYPE, type Reply } from '../reply.ts';
import type { AssertionVerdict, AssertionVerifier } from './client-assertion.ts';
import type { ClientRegistry } from './clients.ts';
import { decideTokenRequest, usesClientAssertion, type TokenError } from './token-request.ts';
import type { TokenStore } from './token-store.ts';

export interface TokenEndpointSettings {
  readonly clients: ClientRegistry;
  readonly tokens: TokenStore;
  readonly tokenTtlS: number;
  readonly payloadLimitBytes: number;
  readonly realm: string;
  /** `envelope`: data/error inside the API envelope; `bare`: the RFC 6749 JSON objects as is. */
  readonly shape: 'envelope' | 'bare';
  /** Checks private_key_jwt assertions; null when no client key is registered. */
  readonly assertions: AssertionVerifier | null;
  /** The token method's name: the last part of the audience an assertion must name. */
  readonly tokenMethod: string;
}

/** This token endpoint's URL as the request reached it: what a client assertion's aud must be. */
function tokenEndpointAudience(req: ServerRequest, tokenMethod: string): string {
  const encrypted = (req.socket as TLSSocket | null)?.encrypted === true;
  const host = req.headers.host ?? (req.headers[':authority'] as string | undefined) ?? '';
  return `${encrypted ? 'https' : 'http'}://${host}/api/${tokenMethod}`;
}

/** The verdict on the form's client assertion (null when it has none). */
async function checkAssertion(
  form: URLSearchParams,
  req: ServerRequest,
  settings: TokenEndpointSettings,
  nowMs: number,
): Promise<AssertionVerdict | null> {
  const assertion = form.get('client_assertion');
  if (!usesClientAssertion(form) || assertion === null) return null;
  if (settings.assertions === null)
    return { ok: false, reason: 'this server accepts no client assertions (no client keys are registered)' };
  return settings.assertions.verify(
    assertion,
    form.get('client_id'),
    tokenEndpointAudience(req, settings.tokenMethod),
    nowMs,
  );
}

/** RFC 6749 §5.1: token responses must not be cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** Answer a token request (`POST /api/{tokenMethod}`, form-encoded). Not rate-limited. */
export async function handleTokenRequest(
  req: ServerRequest,
  settings: TokenEndpointSettings,
  nowMs: () => number,
): Promise<Reply> {
  const wrap = (payload: object, ok: boolean): string =>
    settings.shape === 'bare'
      ? JSON.stringify(payload)
      : JSON.stringify(ok ? { status: 'success', data: payload } : { status: 'error', ...payload });
  const refuse = (error: TokenError, basicUsed = false, close = false, description?: string): Reply => ({
    status: error === 'invalid_client' ? 401 : 400,
    contentType: JSON_TYPE,
    body: wrap(description === undefined ? { error } : { error, error_description: description }, false),
    // RFC 6749 §5.2: a client that tried the Authorization header gets a challenge for its scheme.
    headers:
      error === 'invalid_client' && basicUsed
        ? { ...NO_STORE, 'WWW-Authenticate': `Basic realm="${settings.realm}"` }
        : NO_STORE,
    close,
  });

  if (mediaType(req.headers['content-type']) !== 'application/x-www-form-urlencoded') return refuse('invalid_request');
  const body = await readBody(req, settings.payloadLimitBytes);
  if (body === TOO_LARGE) return refuse('invalid_request', false, true);
  const text = utf8Text(body);
  if (text === undefined) return refuse('invalid_request');

  const form = new URLSearchParams(text);
  const assertion = await checkAssertion(form, req, settings, nowMs());
  const decision = decideTokenRequest(form, req.headers.authorization, settings.clients, assertion);
  if (!decision.ok) return refuse(decision.error, decision.basicUsed, false, decision.description);
  const accessToken = settings.tokens.issue(decision.clientId, nowMs());
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: wrap({ access_token: accessToken, token_type: 'Bearer', expires_in: settings.tokenTtlS }, true),
    headers: NO_STORE,
  };
}
