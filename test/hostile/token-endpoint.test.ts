/**
 * An identity provider that rate-limits token requests, or hands out odd lifetimes (issue 28 §15,
 * §22): a 429 with Retry-After on the token request is honoured — bounded and counted — instead of
 * ending the run at once, and a provider that keeps refusing ends it in one line that says how
 * often; an `expires_in` of 0 or below is reported, like one of 1 s or 1e12 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rawResponse, type TestServer } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { answerSuccess, issueToken, startHostileApi, tokenRequests, type Behaviour } from '../support/stalling-api.ts';
import { resolveVerifyConfig } from '../../src/verify/config.ts';
import { runVerify } from '../../src/verify/runner.ts';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];
const REFUSAL = '{"status":"error","error":"rate_limit_exceeded"}';
const refuseToken =
  (retryAfter: string): Behaviour =>
  (_request, socket) =>
    void socket.write(rawResponse(429, REFUSAL, { 'retry-after': retryAfter }));

/** Refuse each client's first `times` token requests with 429 Retry-After: 1, then issue tokens. */
function refuseFirst(times: number): Behaviour {
  const seen = new Map<string, number>();
  return (request, socket) => {
    const client = /client_id=([^&]+)/.exec(request.body.toString('utf8'))?.[1] ?? '';
    const n = (seen.get(client) ?? 0) + 1;
    seen.set(client, n);
    (n <= times ? refuseToken('1') : issueToken())(request, socket);
  };
}

const plan = (url: string) =>
  testPlan({ scenarios: ping, phases: [{ duration: '1s', rate: 10 }], http: { preconnect: false } }, url);

describe('a token endpoint answering 429 with Retry-After', () => {
  it('run: waits as asked and carries on; the refusals are counted', async () => {
    server = await startHostileApi(answerSuccess, refuseFirst(1));
    const { outcome, result } = await runPlan(plan(server.url), server.url);
    expect(outcome.clientsWithToken).toBe(2);
    expect(result.summary.outcomes).toEqual({ success: 10 });
    expect(result.summary.tokens.outcomes).toEqual({ success: 2, 'error:rate_limit_exceeded': 2 });
    expect(tokenRequests(server)).toBe(4);
  }, 30_000);

  it('run: a provider that keeps refusing ends the run in one line with the count', async () => {
    server = await startHostileApi(answerSuccess, refuseToken('1'));
    await expect(runPlan(plan(server.url), server.url)).rejects.toThrow(
      /^no client could obtain a token from http:\/\/127\.0\.0\.1:\d+: client client-\d: token request refused \(HTTP 429\): rate_limit_exceeded; the identity provider refused 4 times with HTTP 429 \(Retry-After honoured, 3 s waited\)$/,
    );
    expect(tokenRequests(server)).toBe(2 * 4);
  }, 30_000);

  it('run: a Retry-After longer than rpcload waits for a token ends it at once, saying so', async () => {
    server = await startHostileApi(answerSuccess, refuseToken('3600'));
    const started = Date.now();
    await expect(runPlan(plan(server.url), server.url)).rejects.toThrow(
      /refused with HTTP 429 1 time, the last asking to wait 3600 s — longer than rpcload waits for a token \(30 s\)$/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  it('verify: the preflight waits as asked too', async () => {
    server = await startHostileApi(answerSuccess, refuseFirst(1));
    const config = resolveVerifyConfig(
      { client: ['a:s3cret'], method: ['ping'], only: 'envelope' },
      null,
      server.url,
      null,
    );
    const report = await runVerify(config);
    expect(report.checks).toHaveLength(1);
    expect(tokenRequests(server)).toBeGreaterThanOrEqual(2);
  }, 30_000);
});

describe('expires_in of 0 or below', () => {
  it.each([
    ['0', 0],
    ['-5', -5],
  ])('expires_in %s: ignored, with one warning', async (text, expiresIn) => {
    server = await startHostileApi(answerSuccess, issueToken({ expires_in: expiresIn }));
    const { result } = await runPlan(plan(server.url), server.url);
    expect(result.summary.outcomes).toEqual({ success: 10 });
    // No refresh loop: one token per client.
    expect(tokenRequests(server)).toBe(2);
    expect(result.warnings.filter((w) => w.includes('expires_in'))).toEqual([
      `the server's tokens claim expires_in ${text}, not a positive number of seconds: ignored (a client fetches a new token when one is refused as invalid_token)`,
    ]);
  });
});
