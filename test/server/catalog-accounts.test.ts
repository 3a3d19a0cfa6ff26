/**
 * The reference server's catalog.* and accounts.login over real HTTP: a paginated search whose
 * walks end and never repeat, lookups by SKU, a demo login; and the one rate limit in front of
 * every method of the stateful family.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_SIZE } from '../../src/server/methods/catalog.ts';
import type { ServerHandle } from '../../src/server/options.ts';
import { startServer } from '../../src/server/start-server.ts';
import { call, startTestServer, tokenFor, type Answer } from '../support/server-helpers.ts';

interface Product {
  readonly sku: string;
  readonly name: string;
  readonly category: string;
  readonly price: number;
}
interface Page {
  readonly items: readonly Product[];
  readonly next: string | null;
}

const statusAndBody = (answer: Answer): [number, unknown] => [answer.status, answer.json];
const INVALID_ARGUMENTS: [number, unknown] = [400, { status: 'error', error: 'invalid_arguments' }];

/** Walk catalog.search from the first page, each page from `urls` in turn (replicas), repeating `args` with `next`. */
async function walk(urls: readonly string[], token: string, args: Record<string, unknown> = {}): Promise<Page[]> {
  const pages: Page[] = [];
  let next: string | null = null;
  do {
    const url = urls[pages.length % urls.length]!;
    const reply = await call(url, 'catalog.search', token, next === null ? args : { ...args, next });
    expect(reply.status, reply.text).toBe(200);
    pages.push((reply.json as { data: Page }).data);
    next = pages.at(-1)!.next;
  } while (next !== null && pages.length <= 100);
  return pages;
}

describe('catalog.*', () => {
  let server: ServerHandle;
  let token: string;
  beforeAll(async () => {
    server = await startServer({ limit: 1000, replicas: 2 });
    token = await tokenFor(server.url, 'web-1');
  });
  afterAll(() => server.close());

  it.each([
    [{}, 25, CATALOG_SIZE], // 500 products, 20 a page: 25 full pages, no empty one after
    [{ pageSize: 100 }, 5, CATALOG_SIZE],
    [{ q: 'SOCKS', pageSize: 30 }, 4, CATALOG_SIZE / 5], // case-insensitive; every 5th product is socks
    [{ q: 'sku-42' }, 1, 1 + 10], // sku-42 and sku-420 … sku-429
    [{ q: 'no such thing' }, 1, 0], // one empty page, next null
  ])('search %j: %i pages, %i products, each once, the last next null', async (args, pageCount, productCount) => {
    const pages = await walk(server.replicaUrls, token, args); // pages alternate between the replicas
    expect(pages).toHaveLength(pageCount);
    const skus = pages.flatMap((p) => p.items.map((i) => i.sku));
    expect(skus).toHaveLength(productCount);
    expect(new Set(skus).size).toBe(productCount);
    expect(pages.at(-1)!.next).toBeNull();
    for (const page of pages.slice(0, -1)) expect(page.next).toMatch(/^[A-Za-z0-9_.-]+$/);
  });

  it('the catalogue is the same on every server, and get returns what search lists', async () => {
    const firstPage = async (url: string, bearer: string): Promise<Page> =>
      ((await call(url, 'catalog.search', bearer, { pageSize: 3 })).json as { data: Page }).data;
    const first = await firstPage(server.url, token);
    const other = await startTestServer();
    expect((await firstPage(other.url, await tokenFor(other.url, 'web-1'))).items).toEqual(first.items);
    expect(first.items.map((p) => p.sku)).toEqual(['sku-1', 'sku-2', 'sku-3']);
    for (const product of first.items) {
      expect(Object.keys(product)).toEqual(['sku', 'name', 'category', 'price']);
      const types = [product.name, product.category, product.price].map((value) => typeof value);
      expect(types).toEqual(['string', 'string', 'number']);
      expect(Math.round(product.price * 100)).toBe(product.price * 100); // two decimals
      expect(statusAndBody(await call(server.url, 'catalog.get', token, { sku: product.sku }))).toEqual([
        200,
        { status: 'success', data: product },
      ]);
    }
  });

  it('get of an unknown SKU is 404 not_found', async () => {
    expect(statusAndBody(await call(server.url, 'catalog.get', token, { sku: 'sku-501' }))).toEqual([
      404,
      { status: 'error', error: 'not_found' },
    ]);
  });

  it("a cursor is good only with its own arguments, and not for another method's walk", async () => {
    const { next } = (await walk([server.url], token, { q: 'hats' }))[0]!;
    const otherQuery = await call(server.url, 'catalog.search', token, { q: 'shoes', next });
    expect(statusAndBody(otherQuery)).toEqual(INVALID_ARGUMENTS);
    // items.list's cursor for the same arguments: signed with the same key, bound to another method.
    const list = (await call(server.url, 'items.list', token, { pageSize: 20 })).json as { data: Page };
    const otherMethod = await call(server.url, 'catalog.search', token, { pageSize: 20, next: list.data.next });
    expect(statusAndBody(otherMethod)).toEqual(INVALID_ARGUMENTS);
  });

  it.each([
    ['catalog.search', { q: 5 }],
    ['catalog.search', { pageSize: 0 }],
    ['catalog.search', { pageSize: 101 }],
    ['catalog.search', { next: 'forged.cursor' }],
    ['catalog.search', { next: 3 }],
    ['catalog.get', {}],
    ['catalog.get', { sku: 1 }],
  ])('%s %j is 400 invalid_arguments', async (method, args) => {
    expect(statusAndBody(await call(server.url, method, token, args))).toEqual(INVALID_ARGUMENTS);
  });
});

describe('accounts.login', () => {
  let server: ServerHandle;
  let token: string;
  beforeAll(async () => {
    server = await startServer({ limit: 1000 });
    token = await tokenFor(server.url, 'user-1');
  });
  afterAll(() => server.close());

  it('any username with the demo password: a new session each time, the same user id', async () => {
    const login = async (): Promise<{ session: string; user: { id: string; username: string } }> => {
      const args = { username: 'ada@example.com', password: 'demo-password' };
      const reply = await call(server.url, 'accounts.login', token, args);
      expect(reply.status).toBe(200);
      return (reply.json as { data: { session: string; user: { id: string; username: string } } }).data;
    };
    const [first, second] = [await login(), await login()];
    expect(first.user.id).toMatch(/^u_[A-Za-z0-9_-]{12}$/);
    expect(first.user).toEqual({ id: first.user.id, username: 'ada@example.com' });
    expect(second.user).toEqual(first.user);
    expect(first.session).toMatch(/^s_[A-Za-z0-9_-]{24}$/);
    expect(second.session).not.toBe(first.session);
  });

  it('a wrong password is 400 invalid_credentials (not 401: that is the bearer token’s)', async () => {
    const reply = await call(server.url, 'accounts.login', token, { username: 'ada', password: 'letmein' });
    expect(statusAndBody(reply)).toEqual([400, { status: 'error', error: 'invalid_credentials' }]);
    expect(reply.headers['www-authenticate']).toBeUndefined();
  });

  const password = 'demo-password';
  const noPassword = { username: 'ada' };
  const bad = [{}, noPassword, { username: '', password }, { username: 7, password }, { username: 'a', password: 1 }];
  it.each(bad.map((args) => [args]))('%j is 400 invalid_arguments', async (args) => {
    expect(statusAndBody(await call(server.url, 'accounts.login', token, args))).toEqual(INVALID_ARGUMENTS);
  });
});

describe('the stateful family and the rate limit', () => {
  it("every method of it counts against the caller's one quota, and is refused with 429 past it", async () => {
    const server = await startTestServer({ limit: 6, windowMs: 1000 });
    const token = await tokenFor(server.url, 'app-1');
    const id = ((await call(server.url, 'orders.create', token)).json as { data: { id: string } }).data.id;
    const calls: [string, Record<string, unknown>][] = [
      ['orders.get', { id }],
      ['orders.cancel', { id }],
      ['catalog.search', {}],
      ['catalog.get', { sku: 'sku-1' }],
      ['accounts.login', { username: 'ada', password: 'demo-password' }],
    ];
    const statuses: number[] = [];
    for (const [method, args] of calls) statuses.push((await call(server.url, method, token, args)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    for (const [method, args] of [...calls, ['orders.delete', { id }] as const]) {
      const refused = await call(server.url, method, token, args);
      const expected = [method, 429, { status: 'error', error: 'rate_limit_exceeded' }];
      expect([method, refused.status, refused.json]).toEqual(expected);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(0);
    }
    expect(server.stats().byClient['app-1']).toEqual({ admitted: 6, refused: 6 });
  });
});
