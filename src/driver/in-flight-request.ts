/**
 * One API request in flight: its head, what its connection tells it (it is a LoadRequest of the
 * connection contract, connection.ts, whichever client carries it), and what the response said.
 * Requests are recycled through a free list, so the hot path allocates no handler, head or context
 * record per request. Only Content-Type, Content-Encoding and Retry-After are looked at.
 */
import { headerBlockError } from '../api/outcome.ts';
import type { Carrier } from './connection.ts';
import type { RoutedRequest } from './replica-router.ts';
import type { CutReason, FinishedRequest } from './request-outcome.ts';

export interface InFlightListener<T> {
  onRequestDone(request: InFlightRequest<T>): void;
  /** Its connection sends it once more after meeting a stale one (see stale-connections.ts). */
  onRequestResent(request: InFlightRequest<T>): void;
}
const EMPTY = Buffer.alloc(0);
const NO_HEADERS: readonly string[] = Object.freeze([]);
const CONTENT_TYPE = 'content-type';
const CONTENT_ENCODING = 'content-encoding';
const RETRY_AFTER = 'retry-after';

function headerNameIs(name: string, lowerName: string): boolean {
  return name.length === lowerName.length && name.toLowerCase() === lowerName;
}

/** The request's head (RequestHead), refilled for each request the record carries. */
interface MutableHead {
  method: string;
  path: string;
  headers: readonly string[];
  traceparent: string | null;
  body: Buffer;
}

export class InFlightRequest<T> implements RoutedRequest, FinishedRequest {
  readonly head: MutableHead = { path: '', method: 'POST', headers: NO_HEADERS, body: EMPTY, traceparent: null };
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
  responseHeaders: string[] | null = null;
  /** Why we cut this request short ourselves (its deadline, an oversized body); null when we did not. */
  cutReason: CutReason | null = null;
  /** Set once the request was written off as unanswered at the run's end: whatever it reports later is ignored. */
  abandoned = false;
  /** Times its connection sent it again after meeting a stale one (0 or 1). */
  resends = 0;
  /**
   * Non-zero while the sign module's promise for it is pending (the engine's ticket for that
   * signature): it is on no connection yet, and an answer for another ticket is not for it.
   */
  signingTicket = 0;
  /** The connection carrying it, told in onRequestSent; null until it is on one. */
  private carrier: Carrier | null = null;
  /**
   * The body's bytes up to the cap, copied (a connection's pieces are valid during its call only,
   * connection.ts): this request's own buffer, kept across its reuses up to KEPT_BUFFER_BYTES.
   */
  private kept: Buffer | null = null;
  private keptBytes = 0;
  /** Some of the body was kept (an empty piece included): responseBody() is not null. */
  private hasBody = false;
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

  /** Prepare this (new or recycled) request for one request (`traceparent` apart from `headers`, or null). */
  start(path: string, headers: readonly string[], traceparent: string | null, body: Buffer, atMs: number): this {
    this.head.path = path;
    this.head.headers = headers;
    this.head.traceparent = traceparent;
    this.head.body = body;
    this.dispatchedAtMs = atMs;
    this.sentAtMs = atMs;
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
    this.resends = 0;
    this.signingTicket = 0;
    this.carrier = null;
    this.keptBytes = 0;
    this.hasBody = false;
    this.finished = false;
    return this;
  }

  /** Drop references to the finished request's data before going back on the free list. */
  release(): void {
    this.head.body = EMPTY;
    this.head.headers = NO_HEADERS;
    this.head.traceparent = null;
    if (this.kept !== null && this.kept.length > KEPT_BUFFER_BYTES) this.kept = null;
    this.error = null;
    this.responseHeaders = null;
    this.carrier = null;
  }

  onResend(): void {
    this.resends++;
    if (!this.abandoned) this.listener.onRequestResent(this);
  }

  onRequestSent(carrier: Carrier): void {
    this.sentAtMs = this.now();
    this.carrier = carrier;
  }

  /**
   * Cut the request short (its deadline passed): its connection then reports it through
   * onRequestError. Returns false when it is not on a connection yet (still waiting for a
   * connection, or for its signature) and cannot be cut now.
   */
  cut(reason: CutReason): boolean {
    if (this.finished || this.carrier === null) return false;
    this.cutReason ??= reason;
    this.carrier.cut(this, new Error(`rpcload cut the request short: ${reason}`));
    return true;
  }

  onResponseHead(status: number, headers: readonly string[]): void {
    this.status = status;
    // A copy: the HTTP/1.1 parser reuses its list once this call returns.
    if (this.keepsHeaders) this.responseHeaders = headers.slice();
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = headers[i]!;
      if (headerNameIs(name, CONTENT_TYPE)) this.contentType = headers[i + 1]!;
      else if (headerNameIs(name, CONTENT_ENCODING)) this.contentEncoding = headers[i + 1]!;
      else if (status === 429 && headerNameIs(name, RETRY_AFTER)) this.addRetryAfter(headers[i + 1]!);
    }
  }

  private addRetryAfter(value: string): void {
    const seen = this.retryAfter;
    this.retryAfter = seen === undefined ? value : typeof seen === 'string' ? [seen, value] : [...seen, value];
  }

  onResponseData(chunk: Buffer): void {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.maxBodyBytes) {
      this.cut('body_too_large');
      return;
    }
    const room = this.capBytes - this.keptBytes;
    if (room > 0) {
      const take = chunk.length <= room ? chunk.length : room;
      const needed = this.keptBytes + take;
      let kept = this.kept;
      if (kept === null || kept.length < needed) {
        const grown = Buffer.allocUnsafe(Math.min(this.capBytes, Math.max(needed, 2 * (kept?.length ?? 0), 256)));
        if (kept !== null) kept.copy(grown, 0, 0, this.keptBytes);
        this.kept = kept = grown;
      }
      chunk.copy(kept, this.keptBytes, 0, take);
      this.keptBytes = needed;
      this.hasBody = true;
    }
    if (chunk.length > room) this.truncated = true;
  }

  onResponseEnd(): void {
    this.finish();
  }

  /**
   * The request failed. The engine hears of it in a microtask, not now: connections call this from
   * inside loops that fail their whole queue (a refused reconnect, a closed socket; undici's then
   * assert the queue is empty, `assert(client[kSize] === 0)`). The engine's answer to a finished
   * request is to hand its connection to the next request — a send on that very connection —
   * which, made synchronously from here, refilled the queue mid-loop (and crashed the run on
   * undici when a target died with requests waiting for a connection).
   */
  onRequestError(err: Error): void {
    if (this.finished) return;
    this.finished = true;
    // No status yet: the head itself was broken, whatever undici calls it.
    this.error = this.status === 0 ? headerBlockError(err) : err;
    queueMicrotask(this.notifyDone);
  }

  /** The body up to the cap: valid until this request is reused (copy what must outlive it). */
  responseBody(): Buffer | null {
    return this.hasBody ? this.kept!.subarray(0, this.keptBytes) : null;
  }

  private finish(): void {
    if (this.finished) return; // dispatchers report one end per request; be safe against a second
    this.finished = true;
    this.listener.onRequestDone(this);
  }

  /** One bound function per (recycled) request: deferring an error allocates nothing. */
  private readonly notifyDone = (): void => this.listener.onRequestDone(this);
}

/**
 * A body buffer up to this size stays with its request for the next one (larger ones go with the
 * response): most API replies fit, and a full free list holds at most MAX_FREE_REQUESTS of them.
 */
const KEPT_BUFFER_BYTES = 8 * 1024;

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
      new InFlightRequest(
        this.newContext(),
        this.capBytes,
        this.maxBodyBytes,
        this.now,
        this.listener,
        this.keepsHeaders,
      )
    );
  }

  /** A finished request (its dispatcher reports nothing more about it) goes back for reuse. */
  give(request: InFlightRequest<T>): void {
    request.release();
    if (this.free.length < MAX_FREE_REQUESTS) this.free.push(request);
  }
}
