import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { FaultName } from '../../src/server/options.ts';
import { call, startTestServer, tokenFor } from '../support/server-helpers.ts';

async function chaotic(fault: FaultName, chaosRate = 1): Promise<{ url: string; token: string }> {
  const server = await startTestServer({ limit: 1000, faults: [fault], chaosRate, seed: 9 });
  return { url: server.url, token: await tokenFor(server.url, 'client-a') }; // token requests are spared
}

describe('chaos faults (at chaosRate 1 unless said otherwise)', () => {
  it('chaos-garbage: 200 with random bytes as text/plain', async () => {
    const { url, token } = await chaotic('chaos-garbage');
    const reply = await call(url, 'ping', token);
    expect([reply.status, reply.headers['content-type'], reply.json]).toEqual([200, 'text/plain', undefined]);
    expect(reply.text.length).toBeGreaterThan(0);
  });

  it('chaos-reset: the connection is destroyed without a reply', async () => {
    const { url, token } = await chaotic('chaos-reset');
    await expect(call(url, 'ping', token)).rejects.toMatchObject({
      code: expect.stringMatching(/^(UND_ERR_SOCKET|ECONNRESET)$/) as unknown,
    });
  });

  it('chaos-huge: a valid 5 MiB success envelope', async () => {
    const { url, token } = await chaotic('chaos-huge');
    const reply = await call(url, 'ping', token);
    expect(Buffer.byteLength(reply.text)).toBe(5 * 1024 * 1024);
    expect(reply.json).toMatchObject({ status: 'success', data: { padding: expect.any(String) as unknown } });
  });

  it('chaos-slow: the reply drips out over ~3 s, complete and valid', async () => {
    const { url, token } = await chaotic('chaos-slow');
    const startedMs = performance.now();
    const response = await request(`${url}/api/ping`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    });
    const headersAtMs = performance.now() - startedMs;
    const text = await response.body.text();
    expect(performance.now() - startedMs - headersAtMs).toBeGreaterThan(2500); // the body took its time
    expect(JSON.parse(text)).toEqual({ status: 'success', data: { pong: true } });
  });

  it('chaos-escapes: error envelopes whose code holds terminal escape sequences', async () => {
    const { url, token } = await chaotic('chaos-escapes');
    const reply = await call(url, 'ping', token);
    expect(reply.status).toBe(500);
    const code = (reply.json as { error: string }).error;
    expect(code).toContain('\u001b[');
    expect(code).toContain('\u001b]0;');
  });

  it('chaos-html-502: a 502 HTML page like a broken proxy', async () => {
    const { url, token } = await chaotic('chaos-html-502');
    const reply = await call(url, 'ping', token);
    expect([reply.status, reply.headers['content-type']]).toEqual([502, 'text/html; charset=utf-8']);
    expect(reply.text).toContain('<h1>502 Bad Gateway</h1>');
  });

  it('at the default rate, about a tenth of responses are hit and the others are normal', async () => {
    const { url, token } = await chaotic('chaos-html-502', 0.1);
    const replies = await Promise.all(Array.from({ length: 200 }, () => call(url, 'ping', token)));
    const hit = replies.filter((r) => r.status === 502).length;
    expect(hit).toBeGreaterThan(5);
    expect(hit).toBeLessThan(45);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(200 - hit);
  });
});
