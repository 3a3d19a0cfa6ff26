import type { Dispatcher } from 'undici';

/**
 * One API request in flight: the dispatch handler undici calls back, holding what the response
 * said. It uses undici's raw-header callbacks (onConnect/onHeaders/onData/onComplete/onError)
 * on purpose: with them undici neither wraps the handler nor parses every response header into an
 * object, and this runs tens of thousands of times a second. Only Content-Type and Retry-After
 * are ever looked at.
 */
export interface ExchangeListener<T> {
  onExchangeDone(exchange: Exchange<T>): void;
}

const CONTENT_TYPE = 'content-type';
const RETRY_AFTER = 'retry-after';

function headerNameIs(name: Buffer | string, lowerName: string): boolean {
  if (name.length !== lowerName.length) return false;
  return (typeof name === 'string' ? name : name.toString('latin1')).toLowerCase() === lowerName;
}

export class Exchange<T> implements Dispatcher.DispatchHandler {
  /** Time the request was written to a socket (run clock, ms); dispatch time until then. */
  sentAtMs: number;
  status = 0;
  contentType: string | undefined = undefined;
  retryAfter: string | undefined = undefined;
  bodyBytes = 0;
  truncated = false;
  error: Error | null = null;
  private chunks: Buffer[] = [];
  private keptBytes = 0;
  private finished = false;

  constructor(
    /** Caller's context for this request (iteration, timings). */
    readonly context: T,
    readonly dispatchedAtMs: number,
    private readonly capBytes: number,
    private readonly now: () => number,
    private readonly listener: ExchangeListener<T>,
  ) {
    this.sentAtMs = dispatchedAtMs;
  }

  onConnect(): void {
    this.sentAtMs = this.now();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (statusCode < 200) return true; // 1xx: the final response is still to come
    this.status = statusCode;
    if (rawHeaders === null) return true;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (headerNameIs(name, CONTENT_TYPE)) this.contentType = rawHeaders[i + 1]!.toString();
      else if (statusCode === 429 && headerNameIs(name, RETRY_AFTER)) this.retryAfter = rawHeaders[i + 1]!.toString();
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bodyBytes += chunk.length;
    const room = this.capBytes - this.keptBytes;
    if (room > 0) {
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(kept);
      this.keptBytes += kept.length;
    }
    if (chunk.length > room) this.truncated = true;
    return true;
  }

  onComplete(): void {
    this.finish();
  }

  onError(err: Error): void {
    this.error = err;
    this.finish();
  }

  /** The body up to the cap (one buffer; usually the only chunk, so no copy). */
  body(): Buffer | null {
    if (this.chunks.length === 0) return null;
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.keptBytes);
  }

  private finish(): void {
    if (this.finished) return; // undici reports one end per request; be safe against a second
    this.finished = true;
    this.listener.onExchangeDone(this);
  }
}
