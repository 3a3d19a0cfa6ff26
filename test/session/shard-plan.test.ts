import { describe, expect, it } from 'vitest';
import { evenShare, shardClients, shardPhases, shardPlan, usableWorkers } from '../../src/session/workers/shard-plan.ts';
import { testPlan } from '../support/load-run.ts';

describe('evenShare', () => {
  it.each([
    // total, count → shares: they add up and differ by at most one
    [64, 2, [32, 32]],
    [65, 2, [33, 32]],
    [10, 3, [4, 3, 3]],
    [1, 3, [1, 0, 0]],
  ])('%i over %i → %j', (total, count, shares) => {
    expect(Array.from({ length: count }, (_, i) => evenShare(total, i, count))).toEqual(shares);
  });
});

describe('shardPlan', () => {
  const plan = testPlan(
    {
      clients: { pattern: 'client-{n}', count: 5, secret: '${SECRET}' },
      scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
      phases: [
        { name: 'ramp', duration: '2s', rate: { from: 10, to: 100 } },
        { name: 'users', duration: '2s', concurrency: 7 },
      ],
      http: { connections: 9, maxInFlight: 100 },
      seed: 42,
    },
    'http://127.0.0.1:1',
  );

  it('deals every client to exactly one worker, round-robin', () => {
    const shards = [0, 1].map((i) => shardClients(plan.clients, i, 2).map((c) => c.id));
    expect(shards).toEqual([
      ['client-1', 'client-3', 'client-5'],
      ['client-2', 'client-4'],
    ]);
  });

  it('splits arrival rates evenly and virtual users, connections and the in-flight cap by whole shares', () => {
    const parts = [0, 1].map((i) => shardPlan({ ...plan, target: 'http://127.0.0.1:2' }, i, 2));
    expect(parts.map((p) => p.phases[0]!.load)).toEqual([
      { kind: 'rate', fromPerS: 5, toPerS: 50 },
      { kind: 'rate', fromPerS: 5, toPerS: 50 },
    ]);
    expect(shardPhases(plan.phases, 1, 2)[1]!.load).toEqual({ kind: 'concurrency', vus: 3 });
    expect(parts.map((p) => p.http.connections)).toEqual([5, 4]);
    expect(parts.map((p) => p.http.maxInFlight)).toEqual([50, 50]);
    expect(parts.map((p) => p.seed)).toEqual([42, 43]); // different random streams
    expect(parts.map((p) => p.target)).toEqual(['http://127.0.0.1:2', 'http://127.0.0.1:2']);
  });

  it('uses at most one worker per client', () => {
    expect(usableWorkers(8, plan)).toBe(5);
    expect(usableWorkers(2, plan)).toBe(2);
  });
});
