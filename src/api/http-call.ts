/**
 * One API exchange, promise-based: for the verifier and token requests, where clarity beats the
 * last microsecond. (The load driver's hot path uses undici's dispatch handlers instead.)
 */
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { classifyResponse, type Classification } from './envelope.ts';
import { transportOutcome } from './outcome.ts';

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
  /** Headers and body timeout each (ms). Default 10,000. */
  readonly timeoutMs?: number;
  /** Bytes of the body kept; the rest is read and counted. Default 1 MiB. */
  readonly bodyCapBytes?: number;
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

const DEFAULT_CAP_BYTES = 1024 * 1024;

/** First value of a header that may repeat. */
export function headerValue(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function callApi(dispatcher: Dispatcher, call: ApiCall): Promise<ApiReply> {
  const url = new URL(`${call.baseUrl}${call.path ?? `/api/${call.method}`}`);
  const headers: Record<string, string> = { 'content-type': call.contentType ?? 'application/json', ...call.headers };
  const authorization = call.authorization ?? (call.token ? `Bearer ${call.token}` : undefined);
  if (authorization !== undefined) headers.authorization = authorization;
  const capBytes = call.bodyCapBytes ?? DEFAULT_CAP_BYTES;
  const timeoutMs = call.timeoutMs ?? 10_000;
  const sentAtMs = performance.now();
  let headersAtMs = sentAtMs;
  try {
    const response = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: call.httpMethod ?? 'POST',
      headers,
      body: call.body ?? (call.httpMethod && call.httpMethod !== 'POST' ? undefined : '{}'),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    headersAtMs = performance.now();
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bodyBytes = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      bodyBytes += chunk.length;
      if (keptBytes < capBytes) {
        const slice = chunk.length <= capBytes - keptBytes ? chunk : chunk.subarray(0, capBytes - keptBytes);
        kept.push(slice);
        keptBytes += slice.length;
      }
    }
    const body = Buffer.concat(kept, keptBytes);
    const truncated = bodyBytes > keptBytes;
    const responseHeaders = response.headers as Record<string, string | string[] | undefined>;
    return {
      status: response.statusCode,
      headers: responseHeaders,
      body,
      bodyBytes,
      truncated,
      classification: classifyResponse(response.statusCode, headerValue(responseHeaders, 'content-type'), body, truncated),
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
      transportError: transportOutcome(err),
      sentAtMs,
      headersAtMs: doneAtMs,
      doneAtMs,
    };
  }
}
