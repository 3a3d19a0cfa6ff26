import { describe, expect, it } from 'vitest';
import { ClientPool } from '../../src/verify/client-pool.ts';
import type { Clock } from '../../src/verify/clock.ts';

function setup(ids = ['a', 'b', 'c']): { pool: ClientPool; clock: Clock & { t: number } } {
  const clock = {
    t: 0,
    now(): number {
      return this.t;
    },
    epochMs: () => 0,
  };
  return { pool: new ClientPool(ids, 10, 1000, clock), clock };
}

describe('ClientPool', () => {
  it('leases rested clients exclusively and rests them a window (plus margin) after their last response', () => {
    const { pool, clock } = setup(['a', 'b']);
    const lease = pool.tryLease([{ kind: 'fresh' }])!;
    expect(lease.clientIds).toEqual(['a']);
    pool.record('a', 100);
    pool.release(lease);
    expect(pool.tryLease([{ kind: 'fresh' }])?.clientIds).toEqual(['b']);
    expect(pool.tryLease([{ kind: 'fresh' }])).toBeNull();
    expect(pool.nextRestedAtMs()).toBe(1150);
    clock.t = 1150;
    expect(pool.tryLease([{ kind: 'fresh' }])?.clientIds).toEqual(['a']);
  });

  it('grants all needs of a check at once, on distinct clients, or none', () => {
    const { pool } = setup(['a', 'b']);
    expect(pool.tryLease([{ kind: 'fresh' }, { kind: 'fresh' }, { kind: 'fresh' }])).toBeNull();
    expect(pool.tryLease([{ kind: 'fresh' }, { kind: 'fresh' }])?.clientIds).toEqual(['a', 'b']);
  });

  it('puts light checks on a client already in use, keeping rested ones for the checks that need them', () => {
    const { pool } = setup();
    const gate = pool.tryLease([{ kind: 'fresh' }, { kind: 'fresh' }])!;
    // 1 rested client left, 1 fresh need waiting: a light check may not take it
    expect(pool.tryLease([{ kind: 'spare', requests: 3 }], 1)).toBeNull();
    for (let i = 0; i < 11; i++) pool.record('a', i); // a exhausted
    pool.record('b', 5);
    pool.release(gate);
    // b has been used (1 request): room 10 − 1 headroom − 1 used = 8
    expect(pool.tryLease([{ kind: 'spare', requests: 8 }], 1)?.clientIds).toEqual(['b']);
    expect(pool.tryLease([{ kind: 'spare', requests: 1 }], 1)).toBeNull();
    // nothing waiting for rested clients: a light check may take one
    expect(pool.tryLease([{ kind: 'spare', requests: 1 }], 0)?.clientIds).toEqual(['c']);
  });

  it('never reserves more than a rested client can give', () => {
    const { pool } = setup(['a']);
    expect(pool.tryLease([{ kind: 'spare', requests: 40 }])?.clientIds).toEqual(['a']);
  });
});
