/**
 * The reference server's orders.* family over real HTTP: owner-only access, the lifecycle
 * (create → get → cancel → delete), its errors, the bound on memory, one store behind every
 * replica (and in worker-thread mode), and the rate limit in front of it.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ORDERS } from '../../src/server/defaults.ts';
import { OrderStore } from '../../src/server/methods/order-store.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { startServerInWorker } from '../../src/server/worker.ts';
import { call, startTestServer, tokenFor, type Answer } from '../support/server-helpers.ts';

const dataOf = (answer: Answer): Record<string, unknown> => (answer.json as { data: Record<string, unknown> }).data;
const idOf = (answer: Answer): string => dataOf(answer).id as string;
const statusAndBody = (answer: Answer): [number, unknown] => [answer.status, answer.json];
const NOT_FOUND: [number, unknown] = [404, { status: 'error', error: 'not_found' }];
const INVALID_ARGUMENTS: [number, unknown] = [400, { status: 'error', error: 'invalid_arguments' }];

describe('orders.* on one server', () => {
  let server: ServerHandle;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    server = await startServer({ limit: 1000 });
    [alice, bob] = await Promise.all([tokenFor(server.url, 'ord-1'), tokenFor(server.url, 'ord-2')]);
  });
  afterAll(() => server.close());

  it('create → get → cancel → get → delete → get: the lifecycle, each reply the order as it is', async () => {
    const created = await call(server.url, 'orders.create', alice, { item: 'sku-7', qty: 2, note: 'ignored' });
    expect(created.status).toBe(200);
    const id = idOf(created);
    expect(id).toMatch(/^o_[A-Za-z0-9_-]{16}$/);
    const open = { id, state: 'open', item: 'sku-7', qty: 2, items: [{ sku: 'sku-7', qty: 2 }] };
    expect(dataOf(created)).toEqual(open);
    expect(dataOf(await call(server.url, 'orders.get', alice, { id }))).toEqual(open);
    expect(dataOf(await call(server.url, 'orders.cancel', alice, { id }))).toEqual({ ...open, state: 'cancelled' });
    expect(dataOf(await call(server.url, 'orders.get', alice, { id }))).toEqual({ ...open, state: 'cancelled' });
    expect(statusAndBody(await call(server.url, 'orders.delete', alice, { id }))).toEqual([
      200,
      { status: 'success', data: { id, deleted: true } },
    ]);
    for (const method of ['orders.get', 'orders.cancel', 'orders.delete'])
      expect(statusAndBody(await call(server.url, method, alice, { id }))).toEqual(NOT_FOUND);
  });

  it('defaults: no args is an order of one null item; any JSON item is kept as sent', async () => {
    expect(dataOf(await call(server.url, 'orders.create', alice))).toMatchObject({ state: 'open', item: null, qty: 1 });
    const item = { sku: 'sku-9', options: ['gift-wrap'], size: 42 };
    const created = await call(server.url, 'orders.create', alice, { item });
    const read = await call(server.url, 'orders.get', alice, { id: idOf(created) });
    expect(dataOf(read)).toMatchObject({ item, items: [{ sku: item }] });
  });

  it('an order exists only for the client that created it: every other client gets not_found', async () => {
    const id = idOf(await call(server.url, 'orders.create', alice, { item: 'sku-1' }));
    for (const method of ['orders.get', 'orders.cancel', 'orders.delete'])
      expect(statusAndBody(await call(server.url, method, bob, { id }))).toEqual(NOT_FOUND);
    // bob's attempts changed nothing
    expect(dataOf(await call(server.url, 'orders.get', alice, { id }))).toMatchObject({ id, state: 'open' });
  });

  it('an id that never existed is not_found; two creates make two ids', async () => {
    expect(statusAndBody(await call(server.url, 'orders.get', alice, { id: 'o_AAAAAAAAAAAAAAAA' }))).toEqual(NOT_FOUND);
    const ids = await Promise.all([1, 2].map(async () => idOf(await call(server.url, 'orders.create', alice))));
    expect(new Set(ids).size).toBe(2);
  });

  it('cancelling twice is 409 invalid_state, and the order stays cancelled', async () => {
    const id = idOf(await call(server.url, 'orders.create', alice));
    expect((await call(server.url, 'orders.cancel', alice, { id })).status).toBe(200);
    expect(statusAndBody(await call(server.url, 'orders.cancel', alice, { id }))).toEqual([
      409,
      { status: 'error', error: 'invalid_state' },
    ]);
    expect(dataOf(await call(server.url, 'orders.get', alice, { id }))).toMatchObject({ state: 'cancelled' });
  });

  it.each([
    ['orders.create', { qty: 0 }],
    ['orders.create', { qty: 1.5 }],
    ['orders.create', { qty: '2' }],
    ['orders.create', { item: 'x'.repeat(600) }],
    ['orders.get', {}],
    ['orders.get', { id: 7 }],
    ['orders.cancel', { id: null }],
    ['orders.delete', { id: ['o_1'] }],
  ])('%s %j is 400 invalid_arguments', async (method, args) => {
    expect(statusAndBody(await call(server.url, method, alice, args))).toEqual(INVALID_ARGUMENTS);
  });
});

describe('orders.* state and bounds', () => {
  it('keeps at most maxOrders: creating one more forgets the oldest', async () => {
    const server = await startTestServer({ maxOrders: 3 });
    const token = await tokenFor(server.url, 'ord-1');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(idOf(await call(server.url, 'orders.create', token, { item: i })));
    expect(statusAndBody(await call(server.url, 'orders.get', token, { id: ids[0] }))).toEqual(NOT_FOUND);
    for (const [i, id] of ids.slice(1).entries())
      expect(dataOf(await call(server.url, 'orders.get', token, { id }))).toMatchObject({ id, item: i + 1 });
  });

  it('the store itself: bounded by count, oldest first, lookups by owner (default bound 100,000)', () => {
    expect(DEFAULT_MAX_ORDERS).toBe(100_000);
    const store = new OrderStore(2);
    const a = store.create('x', null, 1);
    const b = store.create('x', null, 1);
    const c = store.create('y', null, 1);
    expect(store.size).toBe(2);
    expect(store.find('x', a.id)).toBeUndefined();
    expect(store.find('x', b.id)).toBe(b);
    expect(store.find('x', c.id)).toBeUndefined(); // y's
    expect(store.delete('x', c.id)).toBe(false);
    expect(store.delete('y', c.id)).toBe(true);
    expect(store.size).toBe(1);
  });

  it('refuses a maxOrders that is not a positive integer', async () => {
    await expect(startServer({ maxOrders: 0 })).rejects.toThrow(/maxOrders must be an integer 1–10,000,000, found 0/);
  });

  it('replicas share the orders: made on one, used on the other, kept across a restart', async () => {
    const server = await startTestServer({ replicas: 2, limit: 1000 });
    const [r1, r2] = server.replicaUrls as [string, string];
    const token = await tokenFor(server.url, 'ord-1');
    const id = idOf(await call(r1, 'orders.create', token, { item: 'sku-3' }));
    expect(dataOf(await call(r2, 'orders.get', token, { id }))).toMatchObject({ id, state: 'open' });
    expect(statusAndBody(await call(r2, 'orders.get', await tokenFor(r2, 'ord-2'), { id }))).toEqual(NOT_FOUND);
    await server.restart();
    const fresh = new Agent(); // a restart closes the old connections, as a real one does
    try {
      const options = { dispatcher: fresh };
      expect(dataOf(await call(r1, 'orders.cancel', token, { id }, options))).toMatchObject({ id, state: 'cancelled' });
      expect((await call(r2, 'orders.delete', token, { id }, options)).status).toBe(200);
      expect(statusAndBody(await call(r1, 'orders.get', token, { id }, options))).toEqual(NOT_FOUND);
    } finally {
      await fresh.close();
    }
  });

  it('works the same in worker-thread mode (the embedded server)', async () => {
    const remote = await startServerInWorker({ replicas: 2 });
    try {
      const token = await tokenFor(remote.url, 'ord-1');
      const id = idOf(await call(remote.url, 'orders.create', token, { item: 'sku-5' }));
      // Round robin: the get lands on the other replica.
      expect(dataOf(await call(remote.url, 'orders.get', token, { id }))).toMatchObject({ id, item: 'sku-5' });
    } finally {
      await remote.close();
    }
  });
});
