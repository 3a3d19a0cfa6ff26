// test-pass: both-clients
import { afterEach, describe, expect, it } from 'vitest';
import { decodeHistogram } from '../../src/metrics/hdr.ts';
import { SKIP_PHASE_ENDED } from '../../src/driver/engine.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle, ServerOptions } from '../../src/server/options.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

let server: ServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(options: ServerOptions = {}): Promise<ServerHandle> {
  server = await startServer({ limit: 10_000, ...options });
  return server;
}

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];

describe('runLoad against the reference server', () => {
  it('sends rate × duration requests and its per-client counts equal the server’s', async () => {
    const { url } = await serve();
    const plan = testPlan(
      {
        clients: { pattern: 'client-{n}', count: 5, secret: '${SECRET}' },
        scenarios: ping,
        phases: [{ duration: '3s', rate: 200 }],
      },
      url,
    );
    const { outcome, result } = await runPlan(plan, url);
    expect(outcome.status).toBe('completed');
    // Arrivals are computed, not timed: exactly 3 s × 200/s, sent or (a loop stalled by a busy
    // machine at the phase's very end) counted as skipped; never more, never silently fewer.
    const { requests, skipped } = result.summary;
    expect(requests + (skipped[SKIP_PHASE_ENDED] ?? 0)).toBe(600);
    expect(Object.keys(skipped).filter((reason) => reason !== SKIP_PHASE_ENDED)).toEqual([]);
    expect(requests).toBeGreaterThan(480);
    expect(result.summary.outcomes).toEqual({ success: requests });
    const serverSide = server!.stats().byClient;
    for (const [id, client] of Object.entries(result.rateLimit!.clients)) {
      expect({ admitted: client.admitted, refused: client.refused }).toEqual(serverSide[id]);
    }
    const sent = Object.values(result.rateLimit!.clients).map((c) => c.sent);
    expect(Math.max(...sent) - Math.min(...sent)).toBeLessThanOrEqual(1); // round-robin spreads evenly
  });

  it('follows next cursors with identical params for each pagination walk', async () => {
    const { url } = await serve({ itemCount: 1000 });
    const walk = [
      { name: 'walk', steps: [{ method: 'items.list', args: { filter: 'item' }, paginate: { maxPages: 4 } }] },
    ];
    const { result } = await runPlan(testPlan({ scenarios: walk, phases: [{ duration: '1s', rate: 10 }] }, url), url);
    // 10 walks × 4 pages; the server refuses a cursor whose params changed, so all-success proves
    // identity. A starved machine may end the run before the last walk's last pages (CI: 38 of
    // 40): the run does not send pages past its end, and none fails.
    const { outcomes, requests } = result.summary;
    expect(Object.keys(outcomes)).toEqual(['success']);
    expect(requests).toBeGreaterThanOrEqual(36);
    expect(requests).toBeLessThanOrEqual(40);
  });

  it('measures the closed model from the send, with no schedule lag', async () => {
    const { url } = await serve();
    const { result } = await runPlan(
      testPlan({ scenarios: ping, phases: [{ duration: '1s', concurrency: 4 }] }, url),
      url,
    );
    expect(result.summary.requests).toBeGreaterThan(100);
    expect(result.summary.latencyMs).toEqual(result.summary.serviceTimeMs);
    expect(result.summary.scheduleLagMs).toBeNull();
  });

  it('records the schedule lag of each open-model phase, and none for a closed one', async () => {
    const { url } = await serve();
    const phases = [
      { name: 'open', duration: '1s', rate: 50 },
      { name: 'closed', duration: '500ms', concurrency: 2 },
    ];
    const { result } = await runPlan(testPlan({ scenarios: ping, phases }, url), url);
    expect(result.byPhase.open!.scheduleLagMs).toEqual(result.summary.scheduleLagMs); // all open-model requests were in this phase
    expect(decodeHistogram(result.histograms.scheduleLagByPhase!.open!).totalCount).toBe(50);
    expect(result.byPhase.closed!.requests).toBeGreaterThan(0);
    expect(result.byPhase.closed!.scheduleLagMs).toBeUndefined();
    expect(Object.keys(result.histograms.scheduleLagByPhase!)).toEqual(['open']);
  });

  it('refreshes tokens before they expire, so no request meets an expired token', async () => {
    // A 3 s lifetime refreshed 2 s early: a refresh every second, with 2 s of slack for a busy
    // machine (server, driver and test share one event loop here).
    const { url } = await serve({ tokenTtlS: 3 });
    const plan = testPlan(
      { auth: { refreshMargin: '2s' }, scenarios: ping, phases: [{ duration: '4s', rate: 30 }] },
      url,
    );
    const { result } = await runPlan(plan, url);
    expect(result.summary.outcomes).toEqual({ success: 120 });
    // 2 clients: one token each at start, then about one per second of the run
    expect(result.summary.tokens.requests).toBeGreaterThanOrEqual(2 * 4);
    // Every token the run counted was issued; a refresh in flight when the run stopped (one per
    // client at most) may have been issued after the cancel and so is the server's alone.
    const issued = server!.stats().tokensIssued;
    expect(issued).toBeGreaterThanOrEqual(result.summary.tokens.requests);
    expect(issued).toBeLessThanOrEqual(result.summary.tokens.requests + 2);
  });

  it('recovers from revoked tokens with one refresh per client', async () => {
    const { url } = await serve();
    const plan = testPlan({ scenarios: ping, phases: [{ duration: '3s', rate: 40 }] }, url);
    setTimeout(() => server!.revokeTokens(), 1000);
    const { result } = await runPlan(plan, url);
    const invalid = result.summary.outcomes['error:invalid_token'] ?? 0;
    expect(invalid).toBeGreaterThan(0);
    expect(invalid).toBeLessThan(10); // only the requests in flight until each client's new token arrived
    expect(result.summary.tokens.requests).toBe(4); // 2 clients × (start + one refresh)
    expect(result.summary.outcomes.success).toBe(120 - invalid);
  });

  it('stops scheduling when aborted and reports the run as aborted', async () => {
    const { url } = await serve();
    const abort = new AbortController();
    // Tokens, the code-path warm-up (~0.4 s) and connections come before the clock: ≥ 0.7 s of load remain.
    setTimeout(() => abort.abort(), 1200);
    const startedAt = Date.now();
    const { outcome, result } = await runPlan(
      testPlan({ scenarios: ping, phases: [{ duration: '10s', rate: 50 }] }, url),
      url,
      abort.signal,
    );
    expect(outcome.status).toBe('aborted');
    expect(Date.now() - startedAt).toBeLessThan(3500);
    expect(result.summary.requests).toBeGreaterThan(20);
    expect(result.summary.requests).toBeLessThan(100);
  });
});

describe('rate-limit policies', () => {
  const greedy = (policy: string) => ({
    clients: { list: [{ id: 'client-1', secret: '${SECRET}' }] },
    rateLimit: { limit: 10, window: '1s', on429: policy },
    scenarios: ping,
    phases: [{ duration: '3s', rate: 30 }],
  });

  it('honour: a refused client sends nothing until its Retry-After has passed', async () => {
    const { url } = await serve({ limit: 10, windowMs: 1000 });
    const { result } = await runPlan(testPlan(greedy('honour'), url), url);
    const client = result.rateLimit!.clients['client-1']!;
    expect(server!.stats().byClient['client-1']).toEqual({ admitted: client.admitted, refused: client.refused });
    expect(client.refused).toBeLessThanOrEqual(4); // about one refusal per window
    expect(result.summary.skipped['all clients backing off']).toBeGreaterThan(30);
    const retries = result.rateLimit!.observations.filter((o) => o.kind === 'honoured_retry');
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries)
      expect(Number(retry.detail.waitedMs)).toBeGreaterThanOrEqual(Number(retry.detail.retryAfterS) * 1000);
  });

  it('ignore: a refused client keeps sending', async () => {
    const { url } = await serve({ limit: 10, windowMs: 1000 });
    const { result } = await runPlan(testPlan(greedy('ignore'), url), url);
    const client = result.rateLimit!.clients['client-1']!;
    expect(server!.stats().byClient['client-1']).toEqual({ admitted: client.admitted, refused: client.refused });
    expect(client.sent).toBe(90);
    expect(client.refused).toBeGreaterThanOrEqual(50); // 90 sent, about 10 admitted per window
    expect(result.summary.skipped).toEqual({});
  });
});
