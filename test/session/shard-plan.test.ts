import { describe, expect, it } from 'vitest';
import {
  apportion,
  evenShare,
  shardClients,
  shardPhase,
  shardPlan,
  usableWorkers,
  weightShares,
} from '../../src/session/workers/shard-plan.ts';
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

  it("splits arrival rates and virtual users by the clients' weights, connections and the in-flight cap by whole shares", () => {
    const parts = [0, 1].map((i) => shardPlan({ ...plan, target: 'http://127.0.0.1:2' }, i, 2));
    // 3 of 5 equal clients on the first part, 2 on the second: each client keeps its one-process rate.
    expect(parts.map((p) => p.phases[0]!.load)).toEqual([
      { kind: 'rate', fromPerS: 6, toPerS: 60 },
      { kind: 'rate', fromPerS: 4, toPerS: 40 },
    ]);
    expect(parts.map((p) => p.phases[1]!.load)).toEqual([
      { kind: 'concurrency', vus: 4 },
      { kind: 'concurrency', vus: 3 },
    ]);
    expect(parts.map((p) => p.http.connections)).toEqual([5, 4]);
    expect(parts.map((p) => p.http.maxInFlight)).toEqual([50, 50]);
    expect(parts.map((p) => p.seed)).toEqual([42, 43]); // different random streams
    expect(parts.map((p) => p.target)).toEqual(['http://127.0.0.1:2', 'http://127.0.0.1:2']);
  });

  it('gives a greedy client its weight on whichever part it lands', () => {
    const weighted = { ...plan, clients: plan.clients.map((c, i) => ({ ...c, weight: i === 0 ? 7 : 1 })) };
    expect(weightShares(weighted.clients, 2)).toEqual([9 / 11, 2 / 11]);
    const load = shardPhase(weighted.phases[0]!, weightShares(weighted.clients, 2), 1).load;
    expect(load.kind === 'rate' && [load.fromPerS, load.toPerS].map((n) => n.toFixed(6))).toEqual([
      (20 / 11).toFixed(6),
      (200 / 11).toFixed(6),
    ]);
  });

  it.each([
    [7, [0.6, 0.4], [4, 3]],
    [10, [0.25, 0.25, 0.25, 0.25], [3, 3, 2, 2]],
    [1, [0.2, 0.8], [0, 1]],
  ])('apportions %i by %j → %j', (total, shares, parts) => {
    expect(apportion(total, shares)).toEqual(parts);
  });

  it('uses at most one worker per client', () => {
    expect(usableWorkers(8, plan)).toBe(5);
    expect(usableWorkers(2, plan)).toBe(2);
  });
});
