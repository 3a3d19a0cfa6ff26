/**
 * The reference server's token endpoint: client-credentials requests answered with a bearer
 * token or an RFC 6749 error.
 */
import type { IncomingMessage } from 'node:http';
import { mediaType, readBody, TOO_LARGE, utf8Text } from '../payload.ts';
import { JSON_TYPE, type Reply } from '../reply.ts';
import type { ClientRegistry } from './clients.ts';
import { decideTokenRequest, type TokenError } from './token-request.ts';
import type { TokenStore } from './token-store.ts';

export interface TokenEndpointSettings {
  readonly clients: ClientRegistry;
  readonly tokens: TokenStore;
  readonly tokenTtlS: number;
  readonly payloadLimitBytes: number;
  readonly realm: string;
  /** `envelope`: data/error inside the API envelope; `bare`: the RFC 6749 JSON objects as is. */
  readonly shape: 'envelope' | 'bare';
}

/** RFC 6749 §5.1: token responses must not be cached. */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/** Answer a token request (`POST /api/{tokenMethod}`, form-encoded). Not rate-limited. */
export async function handleTokenRequest(req: IncomingMessage, settings: TokenEndpointSettings, nowMs: () => number): Promise<Reply> {
  const wrap = (payload: object, ok: boolean): string =>
    settings.shape === 'bare'
      ? JSON.stringify(payload)
      : JSON.stringify(ok ? { status: 'success', data: payload } : { status: 'error', ...payload });
  const refuse = (error: TokenError, basicUsed = false, close = false): Reply => ({
    status: error === 'invalid_client' ? 401 : 400,
    contentType: JSON_TYPE,
    body: wrap({ error }, false),
    // RFC 6749 §5.2: a client that tried the Authorization header gets a challenge for its scheme.
    headers: error === 'invalid_client' && basicUsed ? { ...NO_STORE, 'WWW-Authenticate': `Basic realm="${settings.realm}"` } : NO_STORE,
    close,
  });

  if (mediaType(req.headers['content-type']) !== 'application/x-www-form-urlencoded') return refuse('invalid_request');
  const body = await readBody(req, settings.payloadLimitBytes);
  if (body === TOO_LARGE) return refuse('invalid_request', false, true);
  const text = utf8Text(body);
  if (text === undefined) return refuse('invalid_request');

  const decision = decideTokenRequest(new URLSearchParams(text), req.headers.authorization, settings.clients);
  if (!decision.ok) return refuse(decision.error, decision.basicUsed);
  const accessToken = settings.tokens.issue(decision.clientId, nowMs());
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: wrap({ access_token: accessToken, token_type: 'Bearer', expires_in: settings.tokenTtlS }, true),
    headers: NO_STORE,
  };
}
