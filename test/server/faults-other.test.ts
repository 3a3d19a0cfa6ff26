import { describe, expect, it } from 'vitest';
import type { FaultName } from '../../src/server/options.ts';
import { call, send, startTestServer, tokenFor } from '../support/server-helpers.ts';

/** True when `text` is a valid envelope: success with an object `data`, or error with a string `error`. */
function isEnvelope(text: string): boolean {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
    if (body.status === 'success')
      return body.data !== null && typeof body.data === 'object' && !Array.isArray(body.data);
    return body.status === 'error' && typeof body.error === 'string';
  } catch {
    return false;
  }
}

async function serverWith(
  faults: FaultName[],
  options: Parameters<typeof startTestServer>[0] = {},
): Promise<{ url: string; token: string }> {
  const server = await startTestServer({ limit: 1000, ...options, faults });
  return { url: server.url, token: await tokenFor(server.url, 'client-a') };
}

const padded = (bytes: number): string => `{"pad":"${'x'.repeat(bytes - 10)}"}`;

describe('payload, auth, envelope and pagination faults: each breaks its rule, the rest still works', () => {
  it('payload-limit-wrong enforces 65,536 bytes', async () => {
    const { url, token } = await serverWith(['payload-limit-wrong']);
    expect((await call(url, 'ping', token, undefined, { body: padded(65_536) })).status).toBe(200);
    expect((await call(url, 'ping', token, undefined, { body: padded(65_537) })).json).toEqual({
      status: 'error',
      error: 'payload_limit_exceeded',
    });
    expect((await call(url, 'ping', token, undefined, { body: padded(100_000) })).status).toBe(400); // the real limit is refused
  });

  it('payload-413-text answers oversize bodies with 413 text/plain; the limit itself is right', async () => {
    const { url, token } = await serverWith(['payload-413-text']);
    const over = await call(url, 'ping', token, undefined, { body: padded(100_001) });
    expect([over.status, over.headers['content-type'], over.text]).toEqual([
      413,
      'text/plain; charset=utf-8',
      'Payload Too Large',
    ]);
    expect((await call(url, 'ping', token, undefined, { body: padded(100_000) })).status).toBe(200);
  });

  it('auth-403: unknown tokens get 403 without a challenge; missing credentials are still a proper 401', async () => {
    const { url } = await serverWith(['auth-403']);
    const unknown = await call(url, 'ping', 'bm90LWEtdG9rZW4');
    expect([unknown.status, unknown.headers['www-authenticate']]).toEqual([403, undefined]);
    const missing = await call(url, 'ping', undefined);
    expect([missing.status, missing.headers['www-authenticate']]).toEqual([401, 'Bearer realm="rpcload"']);
  });

  it('auth-no-challenge: missing credentials get 401 without WWW-Authenticate; unknown tokens are still proper', async () => {
    const { url } = await serverWith(['auth-no-challenge']);
    const missing = await call(url, 'ping', undefined);
    expect([missing.status, missing.headers['www-authenticate'], missing.json]).toEqual([
      401,
      undefined,
      { status: 'error', error: 'unauthorized' },
    ]);
    const unknown = await call(url, 'ping', 'bm90LWEtdG9rZW4');
    expect([unknown.status, unknown.headers['www-authenticate']]).toEqual([
      401,
      expect.stringContaining('error="invalid_token"'),
    ]);
  });

  it('broken-envelope at rate 1 breaks every method success (still 200 JSON), nothing else', async () => {
    const { url, token } = await serverWith(['broken-envelope'], { brokenEnvelopeRate: 1, seed: 3 });
    const successes = await Promise.all(Array.from({ length: 20 }, () => call(url, 'echo', token, { a: 1 })));
    for (const reply of successes) {
      expect([reply.status, reply.headers['content-type']]).toEqual([200, 'application/json']);
      expect(isEnvelope(reply.text)).toBe(false);
    }
    expect(new Set(successes.map((r) => r.text)).size).toBeGreaterThan(1); // several ways of breaking it
    // errors, pagination pages and token responses are left alone
    expect(isEnvelope((await call(url, 'ping', undefined)).text)).toBe(true);
    expect(isEnvelope((await call(url, 'items.list', token)).text)).toBe(true);
    expect(typeof (await tokenFor(url, 'client-b'))).toBe('string');
  });

  it('broken-envelope at the default rate breaks some successes, not all', async () => {
    const { url, token } = await serverWith(['broken-envelope'], { seed: 5 });
    const replies = await Promise.all(Array.from({ length: 100 }, () => call(url, 'ping', token)));
    const broken = replies.filter((r) => !isEnvelope(r.text)).length;
    expect(broken).toBeGreaterThan(5); // ~20 expected
    expect(broken).toBeLessThan(40);
  });

  it('pagination-empty-cursor: the last page says next: "", the other pages are right', async () => {
    const { url, token } = await serverWith(['pagination-empty-cursor'], { itemCount: 150 });
    const first = (await call(url, 'items.list', token)).json as { data: { items: unknown[]; next: string } };
    expect(first.data.items).toHaveLength(100);
    expect(first.data.next.length).toBeGreaterThan(0);
    const last = (await call(url, 'items.list', token, { next: first.data.next })).json as {
      data: { items: unknown[]; next: unknown };
    };
    expect([last.data.items.length, last.data.next]).toEqual([50, '']);
  });

  it('pagination-oversize: pages of 150 items; the walk is otherwise complete', async () => {
    const { url, token } = await serverWith(['pagination-oversize'], { itemCount: 200 });
    const first = (await call(url, 'items.list', token)).json as { data: { items: unknown[]; next: string } };
    const last = (await call(url, 'items.list', token, { next: first.data.next })).json as {
      data: { items: unknown[]; next: unknown };
    };
    expect([first.data.items.length, last.data.items.length, last.data.next]).toEqual([150, 50, null]);
  });

  it('without faults, none of these rules is broken (control)', async () => {
    const { url, token } = await serverWith([], { itemCount: 150 });
    const replies = await Promise.all(Array.from({ length: 30 }, () => call(url, 'echo', token, { a: 1 })));
    expect(replies.every((r) => isEnvelope(r.text))).toBe(true);
    const unknown = await send(`${url}/api/ping`, {
      headers: { authorization: 'Bearer bm9wZQ', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unknown.status).toBe(401);
    const first = (await call(url, 'items.list', token)).json as { data: { next: string } };
    expect(
      ((await call(url, 'items.list', token, { next: first.data.next })).json as { data: { next: unknown } }).data.next,
    ).toBeNull();
  });
});
