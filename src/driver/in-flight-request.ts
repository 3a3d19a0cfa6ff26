/**
 * One API request in flight: its undici request options, the dispatch handler undici calls back,
 * and what the response said. Requests are recycled through a free list, so the hot path
 * allocates no handler, options or context record per request. It uses undici's raw-header
 * legacy callbacks (onConnect/onHeaders/onData/onComplete/onError) on purpose: with them undici
 * neither wraps the handler nor parses every response header into an object (measured: ~19 % less
 * CPU per request than a new-style handler). Only Content-Type, Content-Encoding and Retry-After
 * are looked at.
 */
import { headerBlockError } from '../api/outcome.ts';
import type { TracedDispatchOptions } from './http1/request-encoder.ts';
import type { RoutedRequest } from './replica-router.ts';
import type { CutReason, FinishedRequest } from './request-outcome.ts';

export interface InFlightListener<T> {
  onRequestDone(request: InFlightRequest<T>): void;
}
const EMPTY = Buffer.alloc(0);
const NO_HEADERS: readonly string[] = Object.freeze([]);
const CONTENT_TYPE = 'content-type';
const CONTENT_ENCODING = 'content-encoding';
const RETRY_AFTER = 'retry-after';

function headerNameIs(name: Buffer | string, lowerName: string): boolean {
  if (name.length !== lowerName.length) return false;
  return (typeof name === 'string' ? name : name.toString('latin1')).toLowerCase() === lowerName;
}

/** undici's options for one request; each InFlightRequest owns one and refills it (undici may read it later, from its queue). */
interface RequestOptions extends TracedDispatchOptions {
  path: string;
  headers: string[];
  body: Buffer;
  traceparent: string | null;
}

export class InFlightRequest<T> implements RoutedRequest, FinishedRequest {
  readonly options: RequestOptions = { path: '', method: 'POST', headers: NO_HEADERS as string[], body: EMPTY, traceparent: null };
  /** The connection carrying it (see ConnectionSet); -1 while it waits for one. */
  connection = -1;
  /** Which of the run's routes (the target, or a replica) carries it (see ReplicaRouter). */
  route = 0;
  /** The connection lane (TLS identity) of its client; 0 when every client shares the connections. */
  lane = 0;
  dispatchedAtMs = 0;
  /** Time the request was written to a socket (run clock, ms); dispatch time until then. */
  sentAtMs = 0;
  status = 0;
  contentType: string | undefined = undefined;
  contentEncoding: string | undefined = undefined;
  /** The 429's Retry-After; every value when the header came more than once (a finding). */
  retryAfter: string | string[] | undefined = undefined;
  bodyBytes = 0;
  truncated = false;
  error: Error | null = null;
  /** Every response header, kept only for `--http-debug` (see keepsHeaders); null otherwise. */
  responseHeaders: Buffer[] | string[] | null = null;
  /** Why we cut this request short ourselves (its deadline, an oversized body); null when we did not. */
  cutReason: CutReason | null = null;
  /** Set once the request was written off as unanswered at the run's end: whatever it reports later is ignored. */
  abandoned = false;
  /** undici's abort for this request, from onConnect; null until it is on a connection. */
  private abort: ((err?: Error) => void) | null = null;
  /** The body's first kept chunk; most API replies arrive in one. */
  private first: Buffer | null = null;
  private more: Buffer[] | null = null;
  private keptBytes = 0;
  private finished = false;

  constructor(
    /** The caller's per-request context (iteration, timings): one mutable record per request, reused with it. */
    readonly context: T,
    private readonly capBytes: number,
    /** A body longer than this is cut off (`cutReason` body_too_large). */
    private readonly maxBodyBytes: number,
    private readonly now: () => number,
    private readonly listener: InFlightListener<T>,
    /** `--http-debug`: keep every response header for the printout (off: one boolean check per response head). */
    private readonly keepsHeaders = false,
  ) {}

  /**
   * Prepare this (new or recycled) request for one request; `traceparent` non-null only for a
   * connection set that sends it apart from `headers` (ConnectionSet.sendsTraceparentApart).
   */
  start(path: string, headers: string[], traceparent: string | null, body: Buffer, dispatchedAtMs: number): this {
    this.options.path = path;
    this.options.headers = headers;
    this.options.traceparent = traceparent;
    this.options.body = body;
    this.dispatchedAtMs = dispatchedAtMs;
    this.sentAtMs = dispatchedAtMs;
    this.status = 0;
    this.contentType = undefined;
    this.contentEncoding = undefined;
    this.retryAfter = undefined;
    this.bodyBytes = 0;
    this.truncated = false;
    this.error = null;
    this.responseHeaders = null;
    this.cutReason = null;
    this.abandoned = false;
    this.abort = null;
    this.first = null;
    this.more = null;
    this.keptBytes = 0;
    this.finished = false;
    return this;
  }

  /** Drop references to the finished request's data before going back on the free list. */
  release(): void {
    this.options.body = EMPTY;
    this.options.headers = NO_HEADERS as string[];
    this.options.traceparent = null;
    this.first = null;
    this.more = null;
    this.error = null;
    this.responseHeaders = null;
    this.abort = null;
  }

  onConnect(abort: (err?: Error) => void): void {
    this.sentAtMs = this.now();
    this.abort = abort;
  }

  /**
   * Cut the request short (its deadline passed): undici then reports it through onError. Returns
   * false when it is not on a connection yet (still waiting for a connection) and cannot be cut now.
   */
  cut(reason: CutReason): boolean {
    if (this.finished || this.abort === null) return false;
    this.cutReason ??= reason;
    this.abort(new Error(`rpcload cut the request short: ${reason}`));
    return true;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (statusCode < 200) return true; // 1xx: the final response is still to come
    this.status = statusCode;
    if (rawHeaders === null) return true;
    // A copy: the HTTP/1 parser reuses its list once this call returns.
    if (this.keepsHeaders) this.responseHeaders = rawHeaders.slice();
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (headerNameIs(name, CONTENT_TYPE)) this.contentType = rawHeaders[i + 1]!.toString();
      else if (headerNameIs(name, CONTENT_ENCODING)) this.contentEncoding = rawHeaders[i + 1]!.toString();
      else if (statusCode === 429 && headerNameIs(name, RETRY_AFTER)) this.addRetryAfter(rawHeaders[i + 1]!.toString());
    }
    return true;
  }

  private addRetryAfter(value: string): void {
    const seen = this.retryAfter;
    this.retryAfter = seen === undefined ? value : typeof seen === 'string' ? [seen, value] : [...seen, value];
  }

  onData(chunk: Buffer): boolean {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.maxBodyBytes) {
      this.cut('body_too_large');
      return false;
    }
    const room = this.capBytes - this.keptBytes;
    if (room > 0) {
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      if (this.first === null) this.first = kept;
      else (this.more ??= []).push(kept);
      this.keptBytes += kept.length;
    }
    if (chunk.length > room) this.truncated = true;
    return true;
  }

  onComplete(): void {
    this.finish();
  }

  /**
   * The request failed. The engine hears of it in a microtask, not now: undici calls this from
   * inside loops that fail a Client's whole queue (a refused reconnect, a closed socket) and then
   * assert that queue is empty (`assert(client[kSize] === 0)`). The engine's answer to a finished
   * request is to hand its connection to the next request — a dispatch into that very Client —
   * which, made synchronously from here, refilled the queue mid-loop and crashed the run when a
   * target died with requests waiting for a connection.
   */
  onError(err: Error): void {
    if (this.finished) return;
    this.finished = true;
    // No status yet: the head itself was broken, whatever undici calls it.
    this.error = this.status === 0 ? headerBlockError(err) : err;
    queueMicrotask(this.notifyDone);
  }

  /** The body up to the cap (one buffer; usually the only chunk, so no copy). */
  responseBody(): Buffer | null {
    if (this.first === null) return null;
    return this.more === null ? this.first : Buffer.concat([this.first, ...this.more], this.keptBytes);
  }

  private finish(): void {
    if (this.finished) return; // dispatchers report one end per request; be safe against a second
    this.finished = true;
    this.listener.onRequestDone(this);
  }

  /** One bound function per (recycled) request: deferring an error allocates nothing. */
  private readonly notifyDone = (): void => this.listener.onRequestDone(this);
}

/** Recycled requests kept at most (more than that are left to the GC). */
const MAX_FREE_REQUESTS = 4096;

/** Finished requests kept for reuse: the hot path allocates one only when all are in flight. */
export class InFlightRequestPool<T> {
  private readonly free: InFlightRequest<T>[] = [];

  constructor(
    private readonly newContext: () => T,
    private readonly capBytes: number,
    private readonly maxBodyBytes: number,
    private readonly now: () => number,
    private readonly listener: InFlightListener<T>,
    private readonly keepsHeaders = false,
  ) {}

  take(): InFlightRequest<T> {
    return (
      this.free.pop() ??
      new InFlightRequest(this.newContext(), this.capBytes, this.maxBodyBytes, this.now, this.listener, this.keepsHeaders)
    );
  }

  /** A finished request (its dispatcher reports nothing more about it) goes back for reuse. */
  give(request: InFlightRequest<T>): void {
    request.release();
    if (this.free.length < MAX_FREE_REQUESTS) this.free.push(request);
  }
}
