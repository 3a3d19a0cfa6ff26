// test-pass: both-clients
/**
 * Replies that are odd in one precise way get a verdict that names that way (issue 28 §17, §18,
 * §23): two Retry-After headers are unusable (it is a singleton field) rather than the last one
 * silently obeyed; a gzip-encoded envelope is `content_encoding:gzip` rather than an envelope
 * violation; a control character in a header is an invalid header rather than undici's
 * "content-length mismatch".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/api/undici-agents.ts';
import { callApi } from '../../src/api/http-call.ts';
import { requestToken } from '../../src/api/token.ts';
import { resolveVerifyConfig } from '../../src/verify/config.ts';
import { runVerify } from '../../src/verify/runner.ts';
import { gzipSync } from 'node:zlib';
import type { TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { apiRequests, startHostileApi, type Behaviour } from '../support/stalling-api.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];
const SUCCESS = '{"status":"success","data":{}}';
const REFUSAL = '{"status":"error","error":"rate_limit_exceeded"}';

/** A reply written byte for byte: status, header lines in this order, body. */
function reply(status: number, headers: readonly string[], body: Buffer | string): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const head = [`HTTP/1.1 ${status} X`, ...headers, `content-length: ${bytes.length}`].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), bytes]);
}

const answer =
  (bytes: Buffer): Behaviour =>
  (_request, socket) =>
    void socket.write(bytes);

describe('two Retry-After headers on one 429', () => {
  const twoRetryAfters = answer(
    reply(429, ['content-type: application/json', 'retry-after: 1', 'retry-after: 120'], REFUSAL),
  );

  it('run: unusable, with a finding; clients back off one window (not 120 s)', async () => {
    server = await startHostileApi(twoRetryAfters);
    const plan = testPlan(
      {
        scenarios: ping,
        phases: [{ duration: '2500ms', rate: 20 }],
        rateLimit: { window: '1s' },
        http: { preconnect: false },
      },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    expect(result.warnings.filter((w) => w.includes('Retry-After'))).toEqual([
      'the server sent 2 Retry-After headers on one reply ("1", "120"), an unusable value (it is a singleton field): clients backed off one rate-limit window instead',
    ]);
    // Each client, refused at once, is back after the 1 s window (120 s would mean one request each).
    expect(apiRequests(server)).toBeGreaterThan(2);
  });

  it('verify: ratelimit.response says the header was repeated', async () => {
    let calls = 0;
    server = await startHostileApi((request, socket) => {
      // Admit 3 per client, then refuse.
      const refused = ++calls > 3;
      socket.write(
        refused
          ? reply(429, ['content-type: application/json', 'retry-after: 1', 'retry-after: 120'], REFUSAL)
          : reply(200, ['content-type: application/json'], SUCCESS),
      );
      void request;
    });
    const config = resolveVerifyConfig(
      { client: ['a:s3cret'], method: ['ping'], limit: 3, window: 1000, only: 'ratelimit.response' },
      null,
      server.url,
      null,
    );
    const report = await runVerify(config);
    const check = report.checks.find((c) => c.id === 'ratelimit.response');
    expect(check?.verdict).toBe('fail');
    expect(check?.detail).toMatch(/2 Retry-After headers \("1", "120"\): unusable, it is a singleton field/);
  }, 20_000);
});

describe('a gzip-encoded envelope (rpcload sends no Accept-Encoding)', () => {
  const gzipped = answer(reply(200, ['content-type: application/json', 'content-encoding: gzip'], gzipSync(SUCCESS)));

  it('run: counted as content_encoding:gzip, not envelope_violation', async () => {
    server = await startHostileApi(gzipped);
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '1s', rate: 10 }], http: { preconnect: false } },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    expect(result.summary.outcomes).toEqual({ 'content_encoding:gzip': 10 });
  });

  it('verify calls and the token request say why', async () => {
    const token = JSON.stringify({ access_token: 'tok-gzip-1', token_type: 'Bearer', expires_in: 3600 });
    server = await startHostileApi(
      gzipped,
      answer(reply(200, ['content-type: application/json', 'content-encoding: gzip'], gzipSync(token))),
    );
    const dispatcher = createDispatcher();
    try {
      const call = await callApi(dispatcher, { baseUrl: server.url, method: 'ping' });
      expect(call.classification?.outcome).toBe('content_encoding:gzip');
      const fetched = await requestToken(dispatcher, {
        baseUrl: server.url,
        tokenMethod: 'auth.token',
        clientId: 'c1',
        clientSecret: 'gzip-secret',
        clientAuth: 'post',
      });
      expect(fetched).toMatchObject({ ok: false, outcome: 'content_encoding:gzip' });
      expect(fetched.ok === false && fetched.detail).toMatch(/Content-Encoding gzip/);
    } finally {
      await dispatcher.destroy();
    }
  });

  it('Content-Encoding: identity is no encoding at all', async () => {
    server = await startHostileApi(
      answer(reply(200, ['content-type: application/json', 'content-encoding: identity'], SUCCESS)),
    );
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '1s', rate: 5 }], http: { preconnect: false } },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    expect(result.summary.outcomes).toEqual({ success: 5 });
  });
});

describe('a control character in a response header', () => {
  // After Content-Length: undici reports the parse error as a content-length mismatch.
  const cases = [
    [
      'in a header after Content-Length',
      (body: string) =>
        answer(
          Buffer.from(
            `HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\nx-note: a\x01b\r\ncontent-type: application/json\r\n\r\n${body}`,
            'latin1',
          ),
        ),
    ],
    [
      'in the Content-Length value',
      (body: string) =>
        answer(
          Buffer.from(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\x1b\r\n\r\n${body}`,
            'latin1',
          ),
        ),
    ],
  ] as const;

  it.each(cases)('%s: run counts transport:invalid_http and names the header', async (_name, behaviour) => {
    server = await startHostileApi(behaviour(SUCCESS));
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '1s', rate: 5 }], http: { preconnect: false } },
      server.url,
    );
    const { result, recorded } = await runPlan(plan, server.url);
    expect(result.summary.outcomes).toEqual({ 'transport:invalid_http': 5 });
    // undici names the cause after our correction (headerBlockError); rpcload's client names it itself.
    expect(recorded.recentErrors.map((e) => e.detail)).toEqual([
      expect.stringMatching(/invalid character in a response header|Invalid header value char/),
    ]);
  });

  it.each(cases)('%s: a verify call says the same', async (_name, behaviour) => {
    server = await startHostileApi(behaviour(SUCCESS));
    const dispatcher = createDispatcher();
    try {
      const call = await callApi(dispatcher, { baseUrl: server.url, method: 'ping' });
      expect(call.transportError).toBe('transport:invalid_http');
    } finally {
      await dispatcher.destroy();
    }
  });
});
