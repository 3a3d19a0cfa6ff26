/**
 * No token storms (issue 12 §3): short lifetimes (within the refresh margin, or under a second),
 * absurd ones (1e12 s) and a server refusing every token with 401 each cost about one token
 * request per client per interval, and the result says what was odd about the server's tokens.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/start-server.ts';
import { resolveVerifyConfig } from '../../src/verify/config.ts';
import { runVerify } from '../../src/verify/runner.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import type { TestServer } from '../support/http-server.ts';
import { rawResponse } from '../support/http-server.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { answerSuccess, issueToken, startHostileApi, tokenRequests, type Behaviour } from '../support/stalling-api.ts';

let reference: ServerHandle | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await reference?.close();
  await server?.close();
  reference = undefined;
  server = undefined;
});

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];

/** Process warnings (e.g. TimeoutOverflowWarning) emitted while `run` runs. */
async function withWarnings<T>(run: () => Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const warnings: string[] = [];
  const listener = (warning: Error): void => void warnings.push(warning.name);
  process.on('warning', listener);
  try {
    return { value: await run(), warnings };
  } finally {
    process.off('warning', listener);
  }
}

describe('token refresh never storms', () => {
  it('the reference server with a 20 s TTL (within the 30 s margin): one token per client, not thousands', async () => {
    reference = await startServer({ limit: 10_000, tokenTtlS: 20 });
    const plan = testPlan(
      {
        clients: { pattern: 'client-{n}', count: 4, secret: '${SECRET}' },
        scenarios: ping,
        phases: [{ duration: '3s', rate: 40 }],
      },
      reference.url,
    );
    const { result } = await runPlan(plan, reference.url);
    expect(result.summary.outcomes).toEqual({ success: 120 });
    // Refreshed at half the lifetime (10 s): nothing more in a 3 s run. (It was one per request.)
    expect(result.summary.tokens.requests).toBe(4);
    expect(reference.stats().tokensIssued).toBe(4);
    expect(result.warnings).toContain(
      "the server's tokens expire after 20 s, within the 30 s refresh margin: refreshed at half their lifetime instead",
    );
  });

  it('expires_in 1e12 is clamped: no overflowing timer, no refresh loop, one warning', async () => {
    server = await startHostileApi(answerSuccess, issueToken({ expires_in: 1e12 }));
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '1s', rate: 20 }], http: { preconnect: false } },
      server.url,
    );
    const { value, warnings } = await withWarnings(() => runPlan(plan, server!.url));
    expect(value.result.summary.outcomes).toEqual({ success: 20 });
    expect(tokenRequests(server)).toBe(2);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
    expect(value.result.warnings.filter((w) => w.includes('expires_in'))).toEqual([
      "the server's tokens claim expires_in 1000000000000 s: treated as 604800 s (one week)",
    ]);
  });

  it('tokens living 0.2 s are refreshed at most once per second per client, and reported', async () => {
    server = await startHostileApi(answerSuccess, issueToken({ expires_in: 0.2 }));
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '2s', rate: 20 }], http: { preconnect: false } },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    // 2 clients × (the first token + at most one per second of a 2 s run, + one for timing slack)
    expect(tokenRequests(server)).toBeLessThanOrEqual(2 * 4);
    expect(result.warnings.some((w) => /expire after 0\.2 s, faster than they can be used/.test(w))).toBe(true);
  });

  it('a server answering every call with 401 invalid_token gets at most one token request per second per client', async () => {
    const invalidToken: Behaviour = (_request, socket) =>
      void socket.write(
        rawResponse(401, '{"status":"error","error":"invalid_token"}', {
          'www-authenticate': 'Bearer error="invalid_token"',
        }),
      );
    server = await startHostileApi(invalidToken);
    const plan = testPlan(
      { scenarios: ping, phases: [{ duration: '2s', rate: 50 }], http: { preconnect: false } },
      server.url,
    );
    const { result } = await runPlan(plan, server.url);
    expect(result.summary.outcomes['error:invalid_token']).toBeGreaterThan(0);
    // Before: one refresh per refused request whenever none was in flight (hundreds).
    expect(tokenRequests(server)).toBeLessThanOrEqual(2 * 4);
  });

  it('verify against the reference server with a 20 s TTL fetches one token per client, not one per request', async () => {
    reference = await startServer({
      limit: 5,
      windowMs: 1000,
      tokenTtlS: 20,
      clients: [{ id: 'a', secret: 's3cret' }],
    });
    const config = resolveVerifyConfig(
      { client: ['a:s3cret'], method: ['ping'], limit: 5, window: 1000, only: 'ratelimit.response' },
      null,
      reference.url,
      null,
    );
    const report = await runVerify(config);
    expect(report.checks.map((c) => c.verdict)).toEqual(['pass']);
    expect(reference.stats().tokensIssued).toBe(1); // once one per API request (the lifetime is within the 30 s margin)
  });
});
