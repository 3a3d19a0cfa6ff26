// test-pass: both-clients
/**
 * Unsolicited interim responses (RFC 9110 §15.2): a server may send any number of 1xx responses
 * before the final one, and a client must skip those it did not ask for. undici drops the
 * connection on an unsolicited `100 Continue`, which turned every answer — and the token request —
 * into `transport:UND_ERR_SOCKET` (issue 28 §14).
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/api/undici-agents.ts';
import { callApi } from '../../src/api/http-call.ts';
import { requestToken } from '../../src/api/token.ts';
import { rawResponse, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { startHostileApi, type Behaviour } from '../support/stalling-api.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const SUCCESS = '{"status":"success","data":{}}';
const TOKEN = JSON.stringify({
  status: 'success',
  data: { access_token: 'tok-interim-1', token_type: 'Bearer', expires_in: 3600 },
});

/** Each reply preceded by `interim` (one or more 1xx heads), written as `pieces` separate TCP writes. */
function withInterim(interim: string, body: string, split = false): Behaviour {
  return (_request, socket: Socket) => {
    const bytes = Buffer.concat([Buffer.from(interim, 'latin1'), rawResponse(200, body)]);
    if (!split) return void socket.write(bytes);
    // The interim head cut in the middle of its status line, the rest a little later.
    socket.write(bytes.subarray(0, 10));
    setTimeout(() => socket.write(bytes.subarray(10)), 30);
  };
}

const CASES = [
  ['a 100 Continue', 'HTTP/1.1 100 Continue\r\n\r\n', false],
  ['a 100 Continue split across writes', 'HTTP/1.1 100 Continue\r\n\r\n', true],
  [
    '102 Processing then 103 Early Hints with headers',
    'HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>; rel=preload\r\n\r\n',
    false,
  ],
] as const;

describe('interim 1xx responses before the real one are skipped', () => {
  it.each(CASES)('run, %s: every call and the token request succeed', async (_name, interim, split) => {
    server = await startHostileApi(withInterim(interim, SUCCESS, split), withInterim(interim, TOKEN, split));
    const plan = testPlan(
      {
        scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
        phases: [{ duration: '1s', rate: 20 }],
        http: { preconnect: false },
      },
      server.url,
    );
    const { outcome, result } = await runPlan(plan, server.url);
    expect(outcome.clientsWithToken).toBe(2);
    expect(result.summary.outcomes).toEqual({ success: 20 });
  });

  it.each(CASES)('verify and token requests, %s', async (_name, interim, split) => {
    server = await startHostileApi(withInterim(interim, SUCCESS, split), withInterim(interim, TOKEN, split));
    const dispatcher = createDispatcher();
    try {
      const token = await requestToken(dispatcher, {
        baseUrl: server.url,
        tokenMethod: 'auth.token',
        clientId: 'c1',
        clientSecret: 'interim-secret',
        clientAuth: 'post',
      });
      expect(token).toMatchObject({ ok: true, accessToken: 'tok-interim-1' });
      // Twice on one keep-alive connection: the second reply is found where it starts too.
      for (let i = 0; i < 2; i++) {
        const reply = await callApi(dispatcher, {
          baseUrl: server.url,
          method: 'ping',
          token: 'tok-interim-1',
          timeoutMs: 5000,
        });
        expect(reply.transportError).toBeNull();
        expect(reply.classification?.outcome).toBe('success');
      }
    } finally {
      await dispatcher.destroy();
    }
  });

  it('an unsolicited 101 Switching Protocols is still an error, not a hang', async () => {
    server = await startHostileApi(
      withInterim('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n', SUCCESS),
    );
    const dispatcher = createDispatcher();
    try {
      const reply = await callApi(dispatcher, { baseUrl: server.url, method: 'ping', timeoutMs: 5000 });
      expect(reply.transportError).toMatch(/^transport:/);
      expect(reply.transportError).not.toBe('transport:timeout');
    } finally {
      await dispatcher.destroy();
    }
  });
});
