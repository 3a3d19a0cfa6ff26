/**
 * The reference server's replicas: N ports behind a round-robin front, one quota per client in a
 * shared store or one per replica in memory, restarts that keep or lose the counts, and a store
 * outage switched by a fault file or by hand, with each outage policy.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { FAULT_FILE_POLL_MS } from '../../src/server/limiter/store-outage.ts';
import { call, sequence, sleep, startTestServer, tokenFor } from '../support/server-helpers.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-replicas-');

const statuses = async (url: string, token: string, count: number): Promise<number[]> =>
  (await sequence(url, 'ping', token, count)).map((a) => a.status);

/** After a restart: over new connections (a restart closes the old ones, as a real one does). */
async function statusesAfterRestart(url: string, token: string, count: number): Promise<number[]> {
  const agent = new Agent();
  try {
    const out: number[] = [];
    for (let i = 0; i < count; i++) out.push((await call(url, 'ping', token, {}, { dispatcher: agent })).status);
    return out;
  } finally {
    await agent.close();
  }
}

describe('replicas', () => {
  it('listens on a front and one port per replica; a token from the front is good on every replica', async () => {
    const server = await startTestServer({ replicas: 3, limit: 5 });
    expect(server.replicaUrls).toHaveLength(3);
    expect(new Set([server.url, ...server.replicaUrls]).size).toBe(4);
    const token = await tokenFor(server.url, 'client-a');
    for (const replica of server.replicaUrls) expect((await call(replica, 'ping', token)).status).toBe(200);
  });

  it("a pagination cursor from one replica is good on another (they share the cursors' key)", async () => {
    const server = await startTestServer({ replicas: 2, itemCount: 30, pageSize: 20 });
    const token = await tokenFor(server.url, 'client-a');
    const [r1, r2] = server.replicaUrls as [string, string];
    const first = (await call(r1, 'items.list', token)).json as { data: { next: string } };
    const second = await call(r2, 'items.list', token, { next: first.data.next });
    expect([second.status, (second.json as { data?: { items: unknown[] } }).data?.items.length]).toEqual([200, 10]);
  });

  it('shared store: a quota spent on one replica is spent on every other', async () => {
    const server = await startTestServer({ replicas: 2, limit: 3, windowMs: 10_000, limiterStore: 'shared' });
    const token = await tokenFor(server.url, 'client-a');
    const [r1, r2] = server.replicaUrls as [string, string];
    expect(await statuses(r1, token, 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses(r2, token, 1)).toEqual([429]);
    expect(await statuses(server.url, token, 2)).toEqual([429, 429]);
  });

  it('memory store: each replica counts on its own, and the front spreads a client round robin', async () => {
    const server = await startTestServer({ replicas: 2, limit: 3, windowMs: 10_000, limiterStore: 'memory' });
    const token = await tokenFor(server.url, 'client-a');
    const [r1, r2] = server.replicaUrls as [string, string];
    expect(await statuses(r1, token, 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses(r2, token, 4)).toEqual([200, 200, 200, 429]);
    const other = await tokenFor(server.url, 'client-b');
    // Through the front: 2 × 3 admitted before the first refusal.
    expect(await statuses(server.url, other, 7)).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });

  it.each([
    ['memory', [200, 200]],
    ['shared', [429, 429]],
  ] as const)(
    'restart with a %s store: the spent budget is %j after it, and tokens survive',
    async (limiterStore, after) => {
      const server = await startTestServer({ replicas: 2, limit: 2, windowMs: 10_000, limiterStore });
      const token = await tokenFor(server.url, 'client-a');
      const [r1] = server.replicaUrls as [string];
      expect(await statuses(r1, token, 3)).toEqual([200, 200, 429]);
      await server.restart();
      expect(await statusesAfterRestart(r1, token, 2)).toEqual(after);
    },
  );

  it('restarts a single server on its own port too', async () => {
    const server = await startTestServer({ limit: 1, windowMs: 10_000, limiterStore: 'memory' });
    const token = await tokenFor(server.url, 'client-a');
    expect(await statuses(server.url, token, 2)).toEqual([200, 429]);
    await server.restart();
    expect(await statusesAfterRestart(server.url, token, 1)).toEqual([200]);
    expect(server.replicaUrls).toEqual([]);
  });
});

describe('store outage', () => {
  it.each([
    ['open', 200, '{"status":"success","data":{"pong":true}}'],
    ['closed-429', 429, '{"status":"error","error":"rate_limit_exceeded"}'],
    ['closed-503', 503, '{"status":"error","error":"unexpected_error"}'],
  ] as const)(
    'policy %s: every request while the store is down gets %i, and nothing is counted',
    async (storeOutagePolicy, status, body) => {
      const server = await startTestServer({ replicas: 2, limit: 2, windowMs: 10_000, storeOutagePolicy });
      const token = await tokenFor(server.url, 'client-a');
      expect(await statuses(server.url, token, 1)).toEqual([200]);
      server.setStoreDown(true);
      const during = await sequence(server.url, 'ping', token, 4);
      expect(during.map((a) => a.status)).toEqual([status, status, status, status]);
      expect(during[0]!.text).toBe(body);
      if (status === 429) expect(during[0]!.headers['retry-after']).toBe('1');
      server.setStoreDown(false);
      // The one request before the outage still counts; the outage's did not.
      expect(await statuses(server.url, token, 2)).toEqual([200, 429]);
    },
  );

  it('follows a fault file: down while it exists, up when it is gone', async () => {
    const file = join(dir, 'store-down');
    const server = await startTestServer({ limit: 100, storeFaultFile: file, storeOutagePolicy: 'closed-503' });
    const token = await tokenFor(server.url, 'client-a');
    expect((await call(server.url, 'ping', token)).status).toBe(200);
    writeFileSync(file, '');
    await sleep(3 * FAULT_FILE_POLL_MS);
    expect((await call(server.url, 'ping', token)).status).toBe(503);
    rmSync(file);
    await sleep(3 * FAULT_FILE_POLL_MS);
    expect((await call(server.url, 'ping', token)).status).toBe(200);
    expect(server.toggleStoreDown()).toBe(true);
    expect((await call(server.url, 'ping', token)).status).toBe(503);
  });
});
