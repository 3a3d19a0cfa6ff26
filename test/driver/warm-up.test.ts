import { afterEach, describe, expect, it } from 'vitest';
import { warmUpHotPath } from '../../src/driver/warm-up.ts';
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
    expect(answered).toBeGreaterThan(100);
    expect(performance.now() - startedAt).toBeLessThan(3000);
  });

  it('returns at once when the run is already stopped', async () => {
    const plan = testPlan({ scenarios: ping, phases: [{ duration: '1s', rate: 100 }] }, 'http://127.0.0.1:9');
    const stop = new AbortController();
    stop.abort();
    expect(await warmUpHotPath(plan, '', stop.signal)).toBe(0);
  });

  it('sends nothing to the target: the server sees exactly the run’s requests and one token request per client', async () => {
    server = await startServer({ limit: 10_000 });
    const plan = testPlan({ scenarios: ping, phases: [{ duration: '1s', rate: 50 }] }, server.url);
    expect(plan.http.warmUp).toBe(true);
    const { result } = await runPlan(plan, server.url);
    expect(result.summary.requests).toBe(50);
    const seen = Object.values(server.stats().byClient).reduce((n, c) => n + c.admitted + c.refused, 0);
    expect(seen).toBe(50);
    expect(result.summary.tokens.requests).toBe(2);
  });
});
