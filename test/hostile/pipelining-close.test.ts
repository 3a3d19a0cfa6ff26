/**
 * Pipelined requests (opt-in `http.pipelining`) on a connection the server is about to close
 * (issue 32 §11). A `keep-alive: timeout=N` hint too short to reuse the connection used to make
 * rpcload close it at the first response, failing the requests behind it that the server had
 * already answered (Apache logged 600 × 200 where rpcload reported 53 failures). Now the answers
 * on the wire are read and counted, and requests a server never processed (those behind a
 * response saying `connection: close`) go out again on a new connection: never a failure.
 */
import type { Socket } from 'node:net';
import { describe, it, type TestContext } from 'vitest';
import type { HttpClientName } from '../../src/profile/plan.ts';
import { HTTP_CLIENTS } from '../../src/profile/schema-settings.ts';
import { rawResponse, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { startHostileApi } from '../support/stalling-api.ts';

const SUCCESS = '{"status":"success","data":{}}';

interface AnsweringServer extends TestServer {
  /** API requests answered. */
  answered(): number;
}

/**
 * A server answering every API request with a success, each response saying `keepAlive` (a
 * `keep-alive` header value); with `closeAfter`, the connection's `closeAfter`-th response says
 * `connection: close`, the connection is closed, and requests pipelined behind it go unread.
 */
async function startAnswering(
  closeWhenDone: TestContext['onTestFinished'],
  keepAlive: string,
  closeAfter: number | null = null,
): Promise<AnsweringServer> {
  const answeredOn = new WeakMap<Socket, number>();
  let answered = 0;
  const server = await startHostileApi((_request, socket) => {
    const count = answeredOn.get(socket) ?? 0;
    if (closeAfter !== null && count >= closeAfter) return; // behind a close: never processed
    answeredOn.set(socket, count + 1);
    answered++;
    const closing = closeAfter !== null && count + 1 === closeAfter;
    socket.write(rawResponse(200, SUCCESS, closing ? { connection: 'close' } : { 'keep-alive': keepAlive }));
    if (closing) socket.end();
  });
  closeWhenDone(() => server.close());
  return { ...server, answered: () => answered };
}

/** 16 users calling ping back to back over 2 connections, up to 8 requests pipelined on each (undici: 1, no POST). */
function pipelined(target: string, client: HttpClientName) {
  return testPlan(
    {
      clients: { list: [{ id: `c-${client}`, secret: '${SECRET}' }] },
      rateLimit: { limit: 1_000_000 },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
      phases: [{ name: 'steady', duration: '1s', concurrency: 16 }],
      http: { client, connections: 2, pipelining: 8 },
    },
    target,
  );
}

describe.concurrent.each(HTTP_CLIENTS)('client %s, pipelining 8', (client) => {
  it('a keep-alive hint of 1 s on each response: every answer counted', async ({ expect, onTestFinished }) => {
    const server = await startAnswering(onTestFinished, 'timeout=1, max=100');
    const { result } = await runPlan(pipelined(server.url, client), server.url);
    expect(result.summary.outcomes).toEqual({ success: result.summary.requests });
    expect(server.answered()).toBe(result.summary.requests);
    expect(result.summary.requests).toBeGreaterThanOrEqual(16); // each user at least once
  });

  it('connection: close after 5 responses: the requests behind go out again', async ({ expect, onTestFinished }) => {
    const server = await startAnswering(onTestFinished, 'timeout=5', 5);
    const { result } = await runPlan(pipelined(server.url, client), server.url);
    expect(result.summary.outcomes).toEqual({ success: result.summary.requests });
    expect(server.answered()).toBe(result.summary.requests);
    expect(result.summary.requests).toBeGreaterThanOrEqual(16); // each user at least once
  });
});
