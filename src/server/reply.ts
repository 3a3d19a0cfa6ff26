/**
 * What a handler answers: a plain record written to the socket in one place (responder.ts), where
 * added latency, chaos faults and status counting apply. Handlers never touch `res`.
 */
export interface Reply {
  readonly status: number;
  readonly contentType: string;
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  /** Close the connection after replying: the request body was left unread (payload refusals). */
  readonly close?: boolean;
  /** A success envelope that the `broken-envelope` fault may break. */
  readonly breakable?: boolean;
}

export const JSON_TYPE = 'application/json';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

/** `{"status":"success","data":…}` with HTTP 200. */
export function successReply(data: unknown): Reply {
  return {
    status: 200,
    contentType: JSON_TYPE,
    body: `{"status":"success","data":${JSON.stringify(data)}}`,
    breakable: true,
  };
}

/** `{"status":"error","error":code}` with the given HTTP status. */
export function errorReply(status: number, code: string, headers?: Readonly<Record<string, string>>): Reply {
  return { status, contentType: JSON_TYPE, body: `{"status":"error","error":${JSON.stringify(code)}}`, headers };
}

/** A plain-text reply, for the faults that deliberately break the envelope. */
export function textReply(status: number, text: string, headers?: Readonly<Record<string, string>>): Reply {
  return { status, contentType: TEXT_TYPE, body: text, headers };
}

export const NOT_FOUND = errorReply(404, 'not_found');
export const METHOD_NOT_ALLOWED = errorReply(405, 'method_not_allowed', { Allow: 'POST' });
export const UNEXPECTED_ERROR = errorReply(500, 'unexpected_error');
export const INVALID_ARGUMENTS = errorReply(400, 'invalid_arguments');
export const UNSUPPORTED_MEDIA_TYPE = errorReply(415, 'invalid_arguments');
/** The capacity model's queue is full: the call is shed without being served. */
export const SERVER_BUSY = errorReply(503, 'server_busy');
export const PAYLOAD_LIMIT_EXCEEDED: Reply = { ...errorReply(400, 'payload_limit_exceeded'), close: true };
