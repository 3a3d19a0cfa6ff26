import { describe, expect, it } from 'vitest';
import type { ServerOptions } from '../../src/server/options.ts';
import { call, sleep, startTestServer, tokenFor } from '../support/server-helpers.ts';

interface Page {
  readonly items: readonly { readonly id: string; readonly name: string; readonly category: string }[];
  readonly next: string | null;
}

/** Walk items.list from the first page, repeating `args` with each `next`; returns the pages. */
async function walk(url: string, token: string, args: Record<string, unknown> = {}, maxPages = 100): Promise<Page[]> {
  const pages: Page[] = [];
  let next: string | null = null;
  do {
    const reply = await call(url, 'items.list', token, next === null ? args : { ...args, next });
    expect(reply.status).toBe(200);
    const page = (reply.json as { data: Page }).data;
    pages.push(page);
    next = page.next;
  } while (next !== null && pages.length < maxPages);
  return pages;
}

async function serverAndToken(options: ServerOptions = {}): Promise<{ url: string; token: string }> {
  const server = await startTestServer({ limit: 1000, ...options });
  return { url: server.url, token: await tokenFor(server.url, 'client-a') };
}

describe('items.list pagination', () => {
  it.each([
    // itemCount, args, expected page sizes
    [250, {}, [100, 100, 50]], // default page size 100; the last page is shorter
    [200, {}, [100, 100]], // a multiple of the page size: no empty extra page
    [40, {}, [40]], // the first page is also the last
    [0, {}, [0]], // an empty data set: one empty page, next null
    [25, { pageSize: 10 }, [10, 10, 5]],
    [1000, { filter: 'gamma' }, [100, 100]], // every 5th item is in category gamma
    [1000, { filter: 'ITEM 99', pageSize: 5 }, [5, 5, 1]], // case-insensitive: Item 99, 990–999
  ])('%d items, %j → pages of %j, every item once, last next null', async (itemCount, args, sizes) => {
    const { url, token } = await serverAndToken({ itemCount });
    const pages = await walk(url, token, args);
    expect(pages.map((p) => p.items.length)).toEqual(sizes);
    const ids = pages.flatMap((p) => p.items.map((i) => i.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.at(-1)!.next).toBeNull();
    for (const page of pages.slice(0, -1)) expect(page.next).toMatch(/^[A-Za-z0-9_.-]+$/);
  });

  it('items are objects with id and name; a full walk sees the whole data set in order', async () => {
    const { url, token } = await serverAndToken({ itemCount: 150 });
    const items = (await walk(url, token)).flatMap((p) => p.items);
    expect(items).toHaveLength(150);
    expect(items[0]).toMatchObject({ id: 'item-000001', name: 'Item 1' });
    expect(items[149]).toMatchObject({ id: 'item-000150', name: 'Item 150' });
  });

  it('the pageSize option sets the default page size', async () => {
    const { url, token } = await serverAndToken({ itemCount: 30, pageSize: 20 });
    expect((await walk(url, token)).map((p) => p.items.length)).toEqual([20, 10]);
  });

  it.each([
    ['a changed filter', { filter: 'beta' }],
    ['a changed page size', { pageSize: 50 }],
    ['an added parameter', { filter: 'alpha', extra: 1 }],
  ])('a cursor used with %s is 400 invalid_arguments', async (_name, changed) => {
    const { url, token } = await serverAndToken();
    const first = (await call(url, 'items.list', token, { filter: 'alpha' })).json as { data: Page };
    const reply = await call(url, 'items.list', token, { ...changed, next: first.data.next });
    expect([reply.status, reply.json]).toEqual([400, { status: 'error', error: 'invalid_arguments' }]);
  });

  it('the same parameters in another key order are still the same walk', async () => {
    const { url, token } = await serverAndToken();
    const first = (await call(url, 'items.list', token, { filter: 'a', pageSize: 10 })).json as { data: Page };
    expect((await call(url, 'items.list', token, { next: first.data.next, pageSize: 10, filter: 'a' })).status).toBe(
      200,
    );
  });

  it("another server's cursor is 400 invalid_arguments", async () => {
    const a = await serverAndToken();
    const b = await serverAndToken();
    const first = (await call(a.url, 'items.list', a.token)).json as { data: Page };
    expect((await call(b.url, 'items.list', b.token, { next: first.data.next })).status).toBe(400);
  });

  it('an expired cursor is 400 invalid_arguments', async () => {
    const { url, token } = await serverAndToken({ cursorTtlMs: 200 });
    const first = (await call(url, 'items.list', token)).json as { data: Page };
    expect((await call(url, 'items.list', token, { next: first.data.next })).status).toBe(200); // still fresh
    await sleep(300);
    const reply = await call(url, 'items.list', token, { next: first.data.next });
    expect([reply.status, reply.json]).toEqual([400, { status: 'error', error: 'invalid_arguments' }]);
  });

  it.each([
    ['a garbage cursor', { next: 'garbage' }],
    ['an empty cursor', { next: '' }],
    [
      'a forged cursor',
      { next: `${Buffer.from('100.99999999999999.abc').toString('base64url')}.AAAAAAAAAAAAAAAAAAAAAA` },
    ],
    ['a non-string cursor', { next: 5 }],
    ['pageSize 0', { pageSize: 0 }],
    ['pageSize 101', { pageSize: 101 }],
    ['a fractional pageSize', { pageSize: 2.5 }],
    ['a non-string filter', { filter: ['a'] }],
  ])('%s is 400 invalid_arguments', async (_name, args) => {
    const { url, token } = await serverAndToken();
    const reply = await call(url, 'items.list', token, args);
    expect([reply.status, reply.json]).toEqual([400, { status: 'error', error: 'invalid_arguments' }]);
  });
});
