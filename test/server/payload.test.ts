import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { call, rawRoundTrip, requestToken, startTestServer, tokenFor } from '../support/server-helpers.ts';

/** A JSON object body of exactly `bytes` bytes: {"pad":"xxx…"}. */
const bodyOf = (bytes: number, fill = 'x'): string => `{"pad":"${fill.repeat(bytes - 10)}"}`;

/** The same body, streamed in 8 KiB chunks (chunked transfer encoding, no Content-Length). */
function streamed(text: string): Readable {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 8192) chunks.push(bytes.subarray(i, i + 8192));
  return Readable.from(chunks);
}

describe('payload limit (default 100,000 bytes)', () => {
  it.each([
    ['exactly the limit', 100_000, 200],
    ['one byte over', 100_001, 400],
    ['far over', 5_000_000, 400],
  ])('%s (%d bytes, Content-Length) → %d', async (_name, bytes, status) => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const reply = await call(server.url, 'ping', token, undefined, { body: bodyOf(bytes) });
    expect(reply.status).toBe(status);
    if (status === 400) {
      expect(reply.json).toEqual({ status: 'error', error: 'payload_limit_exceeded' });
      expect(reply.headers.connection).toBe('close'); // the rest of the body was never read
    }
  });

  it.each([
    ['exactly the limit', 100_000, 200],
    ['one byte over', 100_001, 400],
  ])('streamed chunked: %s → %d', async (_name, bytes, status) => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const reply = await call(server.url, 'echo', token, undefined, { body: streamed(bodyOf(bytes)) });
    expect(reply.status).toBe(status);
    if (status === 200) expect((reply.json as { data: { pad: string } }).data.pad).toHaveLength(bytes - 10);
  });

  it('counts bytes, not characters', async () => {
    const server = await startTestServer({ payloadLimitBytes: 1000 });
    const token = await tokenFor(server.url, 'client-a');
    // 'é' is 2 bytes in UTF-8: 495 of them make 990 + 10 = 1000 bytes, 496 make 1002
    expect((await call(server.url, 'echo', token, undefined, { body: `{"pad":"${'é'.repeat(495)}"}` })).status).toBe(
      200,
    );
    expect((await call(server.url, 'echo', token, undefined, { body: `{"pad":"${'é'.repeat(496)}"}` })).status).toBe(
      400,
    );
  });

  it('a declared Content-Length over the limit is refused before any body byte is sent', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const head = `POST /api/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100001\r\n\r\n`;
    const { text, closedByServer } = await rawRoundTrip(server.port, head, { keepOpen: true });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text.endsWith('{"status":"error","error":"payload_limit_exceeded"}')).toBe(true);
    expect(closedByServer).toBe(true);
  });

  it('a chunked body is refused as soon as it passes the limit, without waiting for its end', async () => {
    const server = await startTestServer({ payloadLimitBytes: 1000 });
    const token = await tokenFor(server.url, 'client-a');
    const chunk = (data: string): string => `${data.length.toString(16)}\r\n${data}\r\n`;
    // 1,001 bytes sent, and the body never terminated (no 0-length chunk): a client still sending
    const request = `POST /api/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(`{"pad":"${'x'.repeat(500)}`)}${chunk('y'.repeat(493))}`;
    const { text, closedByServer } = await rawRoundTrip(server.port, request, { keepOpen: true });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text.endsWith('{"status":"error","error":"payload_limit_exceeded"}')).toBe(true);
    expect(closedByServer).toBe(true);
  });

  it('an oversize call passed the limiter, so it counts against the quota', async () => {
    const server = await startTestServer({ limit: 2, windowMs: 60_000 });
    const token = await tokenFor(server.url, 'client-a');
    expect((await call(server.url, 'ping', token, undefined, { body: bodyOf(100_001) })).status).toBe(400);
    expect((await call(server.url, 'ping', token)).status).toBe(200);
    expect((await call(server.url, 'ping', token)).status).toBe(429);
  });

  it('the token request has the same limit (refused as invalid_request)', async () => {
    const server = await startTestServer({ payloadLimitBytes: 1000 });
    const reply = await requestToken(server.url, {
      grant_type: 'client_credentials',
      client_id: 'client-a',
      client_secret: 'demo-secret',
      pad: 'x'.repeat(1000),
    });
    expect([reply.status, reply.json]).toEqual([400, { status: 'error', error: 'invalid_request' }]);
  });
});
