/**
 * One API call, promise-based: for the verifier and token requests, where clarity beats the
 * last microsecond. (The load driver's hot path sends its requests on connections of its own
 * contract instead: src/driver/connection.ts.)
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { safeTimeout } from '../util/timers.ts';
import { classifyResponse, type Classification } from './envelope.ts';
import {
  headerBlockError,
  OUTCOME_BODY_TOO_LARGE,
  OUTCOME_SIGN_ERROR,
  OUTCOME_TIMEOUT,
  transportOutcome,
} from './outcome.ts';
import { SignError } from './request-signer.ts';

export interface ApiCall {
  /** Base URL without trailing slash; the request goes to {baseUrl}/api/{method}. */
  readonly baseUrl: string;
  readonly method: string;
  /** Overrides the path (for probing routing rules), e.g. "/other". */
  readonly path?: string;
  readonly body?: string | Buffer;
  /** Bearer token; null or absent = no Authorization header. */
  readonly token?: string | null;
  /** Raw Authorization header value; overrides `token`. */
  readonly authorization?: string;
  /** Default application/json. */
  readonly contentType?: string;
  /** Default POST. */
  readonly httpMethod?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The whole call's deadline (ms), from sending to the body's last byte: a reply that
   * trickles in slower ends as `transport:timeout`. Default 30,000.
   */
  readonly timeoutMs?: number;
  /** Bytes of the body kept; the rest is read and counted. Default 1 MiB. */
  readonly bodyCapBytes?: number;
  /** A body longer than this is cut off: `transport:body_too_large`. Default 16 MiB. */
  readonly maxBodyBytes?: number;
  /** Aborting cancels the call at once (it ends as transport:cancelled). */
  readonly signal?: AbortSignal;
  /**
   * Request signing: given the request as it will be sent, resolves with the full header list
   * (undici's flat form) to send instead; a SignError ends the exchange as `sign:error`, unsent.
   */
  readonly sign?: (request: {
    readonly method: string;
    readonly path: string;
    readonly body: Uint8Array;
    readonly headers: readonly string[];
  }) => string[] | Promise<string[]>;
}

export interface ApiReply {
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body, up to the cap. */
  readonly body: Buffer;
  /** Total body bytes received. */
  readonly bodyBytes: number;
  readonly truncated: boolean;
  /** null when no response arrived. */
  readonly classification: Classification | null;
  /** e.g. transport:ECONNRESET, transport:UND_ERR_HEADERS_TIMEOUT; null when a response arrived. */
  readonly transportError: string | null;
  /** Monotonic timestamps (performance.now(), ms). */
  readonly sentAtMs: number;
  readonly headersAtMs: number;
  readonly doneAtMs: number;
}

/**
 * What a call needs of an HTTP client: undici's `request` (a `Dispatcher`: verify, and HTTP/2), or
 * anything with the same `request` (node-transport.ts: Node's own http and https clients).
 */
export type ApiTransport = Dispatcher | PlainTransport;

export interface PlainTransport {
  request(options: ApiTransportRequest): Promise<ApiTransportResponse>;
}

export interface ApiTransportRequest {
  readonly origin: string;
  readonly path: string;
  readonly method: string;
  /** As an object, or undici's flat `[name, value, …]` list (a sign module's). */
  readonly headers: Readonly<Record<string, string>> | readonly string[];
  readonly body: Buffer | undefined;
  readonly headersTimeout: number;
  readonly bodyTimeout: number;
  readonly signal: AbortSignal;
}

export interface ApiTransportResponse {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: AsyncIterable<Buffer> & { destroy(): unknown };
}

const DEFAULT_CAP_BYTES = 1024 * 1024;
const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Outcome of a call cancelled through the caller's signal (a stop, not the server's doing). */
export const OUTCOME_CANCELLED = 'transport:cancelled';

/** Why a call was cut short by us rather than failed by the server. */
type CutReason = 'timeout' | 'body_too_large' | 'cancelled';

/**
 * A method name the conventions can address as `{base}/api/{method}`: one URL path segment of
 * unreserved characters (RFC 3986: letters, digits, `.`, `_`, `~`, `-`), not starting with a dot —
 * so no `/`, no `..`, no spaces, no CR/LF that would break every request.
 */
const METHOD_NAME = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,127}$/;
/** What a method name must be, worded for "expected …" messages. */
export const METHOD_NAME_EXPECTED =
  'a method name of letters, digits, ".", "_", "~" and "-" (not starting with ".", at most 128)';

export function isMethodName(name: string): boolean {
  return METHOD_NAME.test(name);
}

/** First value of a header that may repeat. */
export function headerValue(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function callApi(transport: ApiTransport, call: ApiCall): Promise<ApiReply> {
  const url = new URL(`${call.baseUrl}${call.path ?? `/api/${call.method}`}`);
  const headers: Record<string, string> = { 'content-type': call.contentType ?? 'application/json', ...call.headers };
  const authorization = call.authorization ?? (call.token ? `Bearer ${call.token}` : undefined);
  if (authorization !== undefined) headers.authorization = authorization;
  const capBytes = call.bodyCapBytes ?? DEFAULT_CAP_BYTES;
  const maxBodyBytes = Math.max(capBytes, call.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const timeoutMs = call.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  // undici's headers and body timeouts are idle gaps; this one deadline covers the whole call.
  const cut = new AbortController();
  let cutReason: CutReason | null = null;
  const cutShort = (reason: CutReason): void => {
    cutReason ??= reason;
    cut.abort();
  };
  const deadline = safeTimeout(() => cutShort('timeout'), timeoutMs);
  const onCancel = (): void => cutShort('cancelled');
  if (call.signal?.aborted) cutShort('cancelled');
  else call.signal?.addEventListener('abort', onCancel, { once: true });
  const sentAtMs = performance.now();
  let headersAtMs = sentAtMs;
  let headersReceived = false;
  const httpMethod = call.httpMethod ?? 'POST';
  const path = `${url.pathname}${url.search}`;
  const requestBody = call.body ?? (call.httpMethod && call.httpMethod !== 'POST' ? undefined : '{}');
  try {
    const bytes = typeof requestBody === 'string' ? Buffer.from(requestBody) : requestBody;
    const sent =
      call.sign === undefined
        ? headers
        : await call.sign({
            method: httpMethod,
            path,
            body: bytes ?? Buffer.alloc(0),
            headers: Object.entries(headers).flat(),
          });
    const response = await send(transport, {
      origin: url.origin,
      path,
      method: httpMethod,
      headers: sent,
      body: bytes,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: cut.signal,
    });
    headersAtMs = performance.now();
    headersReceived = true;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bodyBytes = 0;
    for await (const chunk of response.body) {
      bodyBytes += chunk.length;
      if (bodyBytes > maxBodyBytes) {
        cutShort('body_too_large');
        response.body.destroy();
        break;
      }
      if (keptBytes < capBytes) {
        const slice = chunk.length <= capBytes - keptBytes ? chunk : chunk.subarray(0, capBytes - keptBytes);
        kept.push(slice);
        keptBytes += slice.length;
      }
    }
    if (cutReason !== null) throw new Error(cutReason);
    const body = Buffer.concat(kept, keptBytes);
    const truncated = bodyBytes > keptBytes;
    const responseHeaders = response.headers;
    return {
      status: response.statusCode,
      headers: responseHeaders,
      body,
      bodyBytes,
      truncated,
      classification: classifyResponse(
        response.statusCode,
        headerValue(responseHeaders, 'content-type'),
        body,
        truncated,
        headerValue(responseHeaders, 'content-encoding'),
      ),
      transportError: null,
      sentAtMs,
      headersAtMs,
      doneAtMs: performance.now(),
    };
  } catch (err) {
    const doneAtMs = performance.now();
    return {
      status: 0,
      headers: {},
      body: Buffer.alloc(0),
      bodyBytes: 0,
      truncated: false,
      classification: null,
      transportError:
        cutOutcome(cutReason) ??
        (err instanceof SignError
          ? OUTCOME_SIGN_ERROR
          : transportOutcome(headersReceived || !(err instanceof Error) ? err : headerBlockError(err))),
      sentAtMs,
      headersAtMs: doneAtMs,
      doneAtMs,
    };
  } finally {
    clearTimeout(deadline);
    call.signal?.removeEventListener('abort', onCancel);
  }
}

function send(transport: ApiTransport, options: ApiTransportRequest): Promise<ApiTransportResponse> {
  // undici's `request` is overloaded (a callback form first), so it is called as itself.
  if ('dispatch' in transport)
    return transport.request({ ...options, headers: options.headers as Record<string, string> | string[] });
  return transport.request(options);
}

function cutOutcome(reason: CutReason | null): string | null {
  if (reason === null) return null;
  return reason === 'timeout'
    ? OUTCOME_TIMEOUT
    : reason === 'body_too_large'
      ? OUTCOME_BODY_TOO_LARGE
      : OUTCOME_CANCELLED;
}
