/**
 * Request bodies on the reference server: read within the payload limit, and
 * checked as UTF-8 JSON objects.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';

/** A request as the server sees it: HTTP/1.1, or HTTP/2 through node:http2's compatibility API. */
export type ServerRequest = IncomingMessage | Http2ServerRequest;
/** The response to a ServerRequest. */
export type ServerReply = ServerResponse | Http2ServerResponse;

/** Returned by readBody when the body is over the limit; the rest of it was left unread. */
export const TOO_LARGE = Symbol('payload too large');

/**
 * Read a request body of at most `limitBytes` bytes. A declared Content-Length over the limit is
 * refused before reading anything; otherwise bytes are counted as they stream in (chunked bodies
 * too) and reading stops at the first byte past the limit, so nothing far past it is buffered.
 * Rejects when the client goes away mid-body.
 */
export function readBody(req: ServerRequest, limitBytes: number): Promise<Buffer | typeof TOO_LARGE> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let totalBytes = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onGone);
    };
    const onData = (chunk: Buffer): void => {
      totalBytes += chunk.length;
      if (totalBytes > limitBytes) {
        cleanup();
        req.pause();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, totalBytes));
    };
    const onGone = (): void => {
      cleanup();
      reject(new Error('client went away before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}

/** Body text when it is valid UTF-8, else undefined (never silently replaced characters). */
export function utf8Text(body: Buffer): string | undefined {
  return isUtf8(body) ? body.toString('utf8') : undefined;
}

/** Media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | undefined): string {
  if (header === undefined) return '';
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/** `application/json`, optionally with `charset=utf-8` (any other charset is refused). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === 'application/json') return true; // the common case, without parsing
  if (mediaType(header) !== 'application/json') return false;
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(header!)?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/** The body as a JSON object, or undefined for anything else (bad UTF-8, bad JSON, arrays, scalars). */
export function parseJsonObject(body: Buffer): Record<string, unknown> | undefined {
  const text = utf8Text(body);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
