/**
 * A request's response body as the engine reads it: a copy of the pieces its connection handed
 * over (they are valid during the call only: rpcload's HTTP/1.1 client reads every socket into one
 * shared buffer), cut at the cap, and nothing of an earlier response once the request is reused.
 */
import { describe, expect, it } from 'vitest';
import { InFlightRequestPool, type InFlightRequest } from '../../src/driver/in-flight-request.ts';

function poolOf(capBytes: number): { pool: InFlightRequestPool<object>; done: InFlightRequest<object>[] } {
  const done: InFlightRequest<object>[] = [];
  const pool = new InFlightRequestPool<object>(
    () => ({}),
    capBytes,
    10_000_000,
    () => 0,
    { onRequestDone: (request) => void done.push(request), onRequestResent: () => undefined },
  );
  return { pool, done };
}

const started = (pool: InFlightRequestPool<object>): InFlightRequest<object> =>
  pool.take().start('/api/ping', [], null, Buffer.alloc(0), 0);

describe('InFlightRequest body', () => {
  it('keeps a copy of each piece: the buffer it was read into may be overwritten at once', () => {
    const { pool } = poolOf(1024);
    const request = started(pool);
    const shared = Buffer.from('{"status":');
    request.onResponseData(shared);
    shared.fill(0x78); // the next read lands in the same buffer
    request.onResponseData(Buffer.from('"success"}'));
    expect(request.responseBody()?.toString()).toBe('{"status":"success"}');
  });

  it('keeps up to the cap and says the rest was cut off; no piece at all is no body', () => {
    const { pool } = poolOf(8);
    const request = started(pool);
    request.onResponseData(Buffer.from('12345'));
    request.onResponseData(Buffer.from('67890'));
    expect([request.responseBody()?.toString(), request.truncated, request.bodyBytes]).toEqual(['12345678', true, 10]);
    expect(started(pool).responseBody()).toBeNull();
  });

  it('grows past its first buffer for a long body, and a reused request starts empty', () => {
    const { pool, done } = poolOf(1_000_000);
    const request = started(pool);
    const piece = Buffer.alloc(10_000, 0x61);
    for (let i = 0; i < 30; i++) request.onResponseData(piece);
    request.onResponseEnd();
    expect(done).toEqual([request]);
    expect(request.responseBody()!.equals(Buffer.alloc(300_000, 0x61))).toBe(true);
    pool.give(request);
    const reused = started(pool);
    expect(reused).toBe(request);
    reused.onResponseData(Buffer.from('{}'));
    expect(reused.responseBody()?.toString()).toBe('{}');
  });
});
