/**
 * Workloads side by side on one clock, against a server that logs every call: each sends by its
 * own clients, its own scenarios, at its own load and from its own start; a workload of iterations
 * runs exactly N per client and ends when they are done, not at its longest run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPlan, testPlan } from '../support/load-run.ts';
import { startStatefulApi, type StatefulApi } from '../support/stateful-api.ts';

const SECRET = 'workload-secret';
let api: StatefulApi;
beforeAll(async () => (api = await startStatefulApi({ secret: SECRET })));
afterAll(() => api.close());

const plan = (profile: Record<string, unknown>) =>
  testPlan({ clients: { pattern: 'client-{n}', count: 2, secret: SECRET }, ...profile }, api.url);

describe('workloads side by side', () => {
  it('each by its own clients and scenarios, at its own rate, from its own start; iterations exactly N per client', async () => {
    const from = api.log.length;
    const startedAt = performance.now();
    const { result, outcome } = await runPlan(
      plan({
        scenarios: [
          { name: 'a', steps: [{ method: 'a.call' }] },
          { name: 'b', steps: [{ method: 'b.call' }] },
          { name: 'c', steps: [{ method: 'c.first' }, { method: 'c.second' }] },
        ],
        workloads: [
          {
            name: 'fast',
            clients: { pattern: 'f-{n}', count: 2 },
            scenarios: ['a'],
            phases: [{ duration: '2s', rate: 40 }],
          },
          {
            name: 'slow',
            clients: ['client-1'],
            scenarios: ['b'],
            phases: [{ duration: '1500ms', rate: 10 }],
            startAfter: '500ms',
          },
          { name: 'once', clients: { pattern: 'u-{n}', count: 3 }, scenarios: ['c'], iterations: 2, maxDuration: '1m' },
        ],
      }),
      api.url,
    );
    const elapsedMs = performance.now() - startedAt;
    expect(outcome.status).toBe('completed');
    const calls = api.log.slice(from);
    const by = (method: string) => calls.filter((c) => c.method === method);
    // fast: 40/s × 2 s, by f-1 and f-2 only
    expect(by('a.call')).toHaveLength(80);
    expect(new Set(by('a.call').map((c) => c.client))).toEqual(new Set(['f-1', 'f-2']));
    // slow: 10/s × 1.5 s, by client-1 only, none before its start (500 ms after the first call of the run)
    expect(by('b.call')).toHaveLength(15);
    expect(new Set(by('b.call').map((c) => c.client))).toEqual(new Set(['client-1']));
    const firstAtMs = Math.min(...calls.map((c) => c.atMs));
    // (The run's very first call may itself reach the server late, behind its connection's set-up on a
    // busy machine: CI once saw 449.8 ms; a workload that ignored its start would be at ~0.)
    expect(Math.min(...by('b.call').map((c) => c.atMs)) - firstAtMs).toBeGreaterThanOrEqual(400);
    // once: 3 clients × 2 iterations × 2 steps, each client exactly its own
    for (const client of ['u-1', 'u-2', 'u-3']) {
      expect(by('c.first').filter((c) => c.client === client)).toHaveLength(2);
      expect(by('c.second').filter((c) => c.client === client)).toHaveLength(2);
    }
    // The run lasted its timed workloads (2 s), not the iterations' longest run (1 min).
    expect(elapsedMs).toBeLessThan(15_000);
    // The result by workload: requests, kind, offered against achieved per phase.
    expect(Object.keys(result.byWorkload!)).toEqual(['fast', 'slow', 'once']);
    expect(result.byWorkload!.fast).toMatchObject({ requests: 80, kind: 'rate', clients: 2 });
    expect(result.byWorkload!.fast!.phases).toEqual([
      { name: 'phase-1', requests: 80, offeredPerS: 40, achievedPerS: 40 },
    ]);
    expect(result.byWorkload!.slow).toMatchObject({ requests: 15, kind: 'rate', clients: 1 });
    expect(result.byWorkload!.once).toMatchObject({ requests: 12, kind: 'iterations', clients: 3 });
    expect(result.byWorkload!.once!.phases[0]).toMatchObject({ name: 'iterations', requests: 12, offeredPerS: null });
    expect(result.byWorkload!.once!.scheduleLagMs).toBeUndefined(); // closed model: no schedule to lag
    expect(Object.keys(result.byPhase)).toEqual(['fast/phase-1', 'slow/phase-1', 'once/iterations']);
    expect(result.summary.requests).toBe(80 + 15 + 12);
  }, 30_000);

  it('records step tags and threshold selections exactly: the slices add up to what the server saw', async () => {
    const from = api.log.length;
    const { result } = await runPlan(
      plan({
        scenarios: [
          {
            name: 'flow',
            steps: [
              { method: 'orders.create', args: { item: 'x' }, save: { id: 'id' }, tags: { kind: 'write' } },
              { method: 'orders.get', args: { id: '{{vars.id}}' }, tags: { kind: 'read' } },
            ],
          },
          { name: 'ping', steps: [{ method: 'ping', tags: { kind: 'read' } }] },
        ],
        workloads: [
          { name: 'orders', scenarios: ['flow'], phases: [{ duration: '1s', rate: 20 }] },
          { name: 'pings', scenarios: ['ping'], clients: ['client-2'], phases: [{ duration: '1s', rate: 30 }] },
        ],
        thresholds: [
          'p99{workload:orders} < 5s',
          'requests{kind:read,client:client-2} > 0',
          'requests{kind:write} == 20',
        ],
      }),
      api.url,
    );
    const calls = api.log.slice(from);
    const count = (f: (c: (typeof calls)[number]) => boolean) => calls.filter(f).length;
    expect(result.byTag!['kind:write']!.requests).toBe(count((c) => c.method === 'orders.create'));
    expect(result.byTag!['kind:read']!.requests).toBe(count((c) => c.method === 'orders.get' || c.method === 'ping'));
    expect(result.bySelector!['workload:orders']!.requests).toBe(count((c) => c.method.startsWith('orders.')));
    // client-2 reads: its pings, and the orders.get of the orders iterations it carried
    expect(result.bySelector!['client:client-2,kind:read']!.requests).toBe(
      count((c) => c.client === 'client-2' && (c.method === 'ping' || c.method === 'orders.get')),
    );
    expect(result.histograms.bySelector!['workload:orders']).toBeDefined();
    expect(result.histograms.byWorkload!.pings!.scheduleLag).toBeDefined();
  }, 30_000);
});
