import { afterEach, describe, expect, it } from 'vitest';
import { warmUpHotPath, warmUpOnce, worthWarming } from '../../src/driver/warm-up.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { runPlan, testPlan } from '../support/load-run.ts';

let server: ServerHandle | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ping = [{ name: 'ping', steps: [{ method: 'ping' }] }];
const walk = [
  {
    name: 'walk',
    steps: [
      { method: 'items.list', paginate: { maxPages: 3 } },
      { method: 'ping', think: '1ms' },
    ],
  },
];

describe('warmUpHotPath', () => {
  it('runs the scenarios, closed and open model, against its own responder', async () => {
    const plan = testPlan(
      {
        scenarios: [...ping, ...walk],
        phases: [
          { duration: '1s', concurrency: 4 },
          { duration: '1s', rate: 3000 },
        ],
      },
      'http://127.0.0.1:9', // never contacted: nothing listens on the discard port
    );
    const startedAt = performance.now();
    const answered = await warmUpHotPath(plan, '', new AbortController().signal, 300);
    expect(answered).toBeGreaterThan(20); // a few hundred on an idle machine; this only proves it ran
    expect(performance.now() - startedAt).toBeLessThan(3000);
  });

  it('is worth it from 1,000 arrivals/s or 8 virtual users: a cold code path keeps up below', () => {
    const plan = (phases: unknown[]) => testPlan({ scenarios: ping, phases }, 'http://127.0.0.1:9');
    expect(worthWarming(plan([{ duration: '1s', rate: 999 }]))).toBe(false);
    expect(
      worthWarming(
        plan([
          { duration: '1s', rate: 10 },
          { duration: '1s', rate: { from: 10, to: 1000 } },
        ]),
      ),
    ).toBe(true);
    expect(worthWarming(plan([{ duration: '1s', concurrency: 7 }]))).toBe(false);
    expect(worthWarming(plan([{ duration: '1s', concurrency: 8 }]))).toBe(true);
  });

  it('returns at once when the run is already stopped', async () => {
    const plan = testPlan({ scenarios: ping, phases: [{ duration: '1s', rate: 100 }] }, 'http://127.0.0.1:9');
    const stop = new AbortController();
    stop.abort();
    expect(await warmUpHotPath(plan, '', stop.signal)).toBe(0);
  });

  it('sends nothing to the target: the server sees exactly the run’s requests and one token request per client', async () => {
    server = await startServer({ limit: 10_000 });
    const plan = testPlan({ scenarios: ping, phases: [{ duration: '1s', rate: 1000 }] }, server.url);
    expect(plan.http.warmUp && worthWarming(plan)).toBe(true);
    const { result } = await runPlan(plan, server.url);
    // (on a busy machine the phase may end before its last arrival or two: those are never sent)
    expect(result.summary.requests).toBeGreaterThan(900);
    const seen = Object.values(server.stats().byClient).reduce((n, c) => n + c.admitted + c.refused, 0);
    expect(seen).toBe(result.summary.requests);
    expect(result.summary.tokens.requests).toBe(2);
  });

  // After the test above: its run warmed this thread.
  it('warms once per thread: a later load (e.g. the next capacity step) finds the code warm', async () => {
    const plan = testPlan({ scenarios: ping, phases: [{ duration: '1s', rate: 5000 }] }, 'http://127.0.0.1:9');
    expect(await warmUpOnce(plan, '', new AbortController().signal)).toBe(0);
    expect(await warmUpHotPath(plan, '', new AbortController().signal, 200)).toBeGreaterThan(0);
  });
});
