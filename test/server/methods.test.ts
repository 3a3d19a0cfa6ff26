import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { METHOD_HELP } from '../../src/server/methods/method-help.ts';
import { call, startTestServer, tally, tokenFor } from '../support/server-helpers.ts';

describe('work, flaky and added latency', () => {
  it('work with delayMs answers after at least that long and reports it', async () => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    const startedMs = performance.now();
    const reply = await call(server.url, 'work', token, { delayMs: 150 });
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(145); // timers may fire a ms early
    expect(reply.json).toEqual({ status: 'success', data: { delayMs: 150 } });
  });

  it.each([[-1], [60_001], ['100'], [null]])('work with delayMs %j is 400 invalid_arguments', async (delayMs) => {
    const server = await startTestServer();
    const token = await tokenFor(server.url, 'client-a');
    expect((await call(server.url, 'work', token, { delayMs })).status).toBe(400);
  });

  it('work latencies follow the log-normal model (median near p50, none absurd) and repeat with a seed', async () => {
    const sampleDelays = async (seed: number): Promise<number[]> => {
      const server = await startTestServer({ limit: 1000, workLatency: { p50Ms: 10, p99Ms: 40 }, seed });
      const token = await tokenFor(server.url, 'client-a');
      const replies = await Promise.all(Array.from({ length: 60 }, () => call(server.url, 'work', token)));
      return replies.map((r) => (r.json as { data: { delayMs: number } }).data.delayMs).sort((a, b) => a - b);
    };
    const delays = await sampleDelays(7);
    expect(delays[30]).toBeGreaterThan(5); // the median of 60 draws around p50 = 10 ms
    expect(delays[30]).toBeLessThan(20);
    expect(delays[0]).toBeGreaterThan(0);
    expect(delays.at(-1)).toBeLessThan(200);
    expect(await sampleDelays(7)).toEqual(delays); // same seed, same draws
  });

  it.each([
    [0, { 200: 40 }],
    [1, { 500: 40 }],
  ])('flaky at rate %d → %j', async (flakyRate, expected) => {
    const server = await startTestServer({ limit: 1000, flakyRate });
    const token = await tokenFor(server.url, 'client-a');
    const replies = await Promise.all(Array.from({ length: 40 }, () => call(server.url, 'flaky', token)));
    expect(tally(replies.map((r) => r.status))).toEqual(expected);
    const failure = replies.find((r) => r.status === 500);
    if (failure) expect(failure.json).toEqual({ status: 'error', error: 'unexpected_error' });
    else expect(replies[0]!.json).toEqual({ status: 'success', data: { ok: true } });
  });

  it('flaky at rate 0.3 fails about that share of calls, the same ones for the same seed', async () => {
    const outcomes = async (): Promise<number[]> => {
      const server = await startTestServer({ limit: 1000, flakyRate: 0.3, seed: 11 });
      const token = await tokenFor(server.url, 'client-a');
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push((await call(server.url, 'flaky', token)).status);
      return statuses;
    };
    const first = await outcomes();
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(15);
    expect(failures).toBeLessThan(45);
    expect(await outcomes()).toEqual(first);
  });

  it('addedLatencyMs delays every API response, errors included', async () => {
    const server = await startTestServer({ addedLatencyMs: 120 });
    const timed = async (run: () => Promise<unknown>): Promise<number> => {
      const startedMs = performance.now();
      await run();
      return performance.now() - startedMs;
    };
    let token = '';
    expect(await timed(async () => (token = await tokenFor(server.url, 'client-a')))).toBeGreaterThanOrEqual(115);
    expect(await timed(() => call(server.url, 'ping', token))).toBeGreaterThanOrEqual(115);
    expect(await timed(() => call(server.url, 'ping', undefined))).toBeGreaterThanOrEqual(115); // a 401
  });
});

describe('the method list', () => {
  it('every method serve --help lists is served (an unlisted one is 404 not_found)', async () => {
    const server = await startTestServer({ flakyRate: 0, workLatency: { p50Ms: 1, p99Ms: 2 } });
    const token = await tokenFor(server.url, 'client-a');
    for (const { name } of METHOD_HELP)
      expect([name, (await call(server.url, name, token)).status]).not.toEqual([name, 404]);
    expect((await call(server.url, 'orders.list', token)).json).toEqual({ status: 'error', error: 'not_found' });
  });
});
