/**
 * `catalog.search` and `catalog.get`: a small product catalogue, the same on every server (made
 * from a fixed seed), for browsing traffic: a paginated search and a lookup by SKU.
 */
import { INVALID_ARGUMENTS, NOT_FOUND, successReply, type Reply } from '../reply.ts';
import { createRandom } from '../random.ts';
import { pageStart, paramsFingerprint, type CursorCodec } from './cursor.ts';
import type { MethodHandler } from './method.ts';

/** Products in the catalogue: SKUs `sku-1` … `sku-500`. */
export const CATALOG_SIZE = 500;
/** Fixed, not the server's seed: every server has the same catalogue, so examples read the same everywhere. */
const CATALOG_SEED = 33;
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const MAX_QUERY_LENGTH = 200;

export const CATALOG_CATEGORIES = ['shoes', 'hats', 'socks', 'shirts', 'bags'] as const;
const COLOURS = ['black', 'white', 'red', 'blue', 'green', 'grey', 'yellow', 'brown'] as const;
const MATERIALS = ['wool', 'cotton', 'leather', 'linen', 'canvas', 'denim'] as const;

export interface Product {
  readonly sku: string;
  readonly name: string;
  readonly category: string;
  /** In currency units, two decimals (e.g. 24.99). */
  readonly price: number;
}

/** The catalogue, made once per thread: CATALOG_SIZE products, categories in turn. */
function makeCatalog(): readonly Product[] {
  const random = createRandom(CATALOG_SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  return Array.from({ length: CATALOG_SIZE }, (_, index) => {
    const category = CATALOG_CATEGORIES[index % CATALOG_CATEGORIES.length]!;
    const name = `${pick(COLOURS)} ${pick(MATERIALS)} ${category}`.replace(/^./, (c) => c.toUpperCase());
    return { sku: `sku-${index + 1}`, name, category, price: (299 + Math.floor(random() * 19_700)) / 100 };
  });
}

const CATALOG = makeCatalog();
const BY_SKU = new Map(CATALOG.map((product) => [product.sku, product]));
/** What a query is matched against, lower-cased once. */
const HAYSTACKS = CATALOG.map((p) => `${p.sku} ${p.name} ${p.category}`.toLowerCase());

function isPageSize(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PAGE_SIZE;
}

export interface CatalogSettings {
  readonly codec: CursorCodec;
  readonly cursorTtlMs: number;
}

/**
 * `catalog.search`: args `q` (optional: case-insensitive substring of SKU, name or category),
 * `pageSize` (1–100, default 20) and `next` (the previous page's cursor, valid only with the same
 * other arguments and until it expires). Data `{items, next}`, `next` null on the last page.
 */
function search(settings: CatalogSettings): MethodHandler {
  return (args, call): Reply => {
    const { q, pageSize = DEFAULT_PAGE_SIZE, next } = args;
    if (q !== undefined && (typeof q !== 'string' || q.length > MAX_QUERY_LENGTH)) return INVALID_ARGUMENTS;
    if (!isPageSize(pageSize)) return INVALID_ARGUMENTS;
    const paramsHash = paramsFingerprint(args, 'catalog.search');
    const offset = pageStart(next, settings.codec, paramsHash, call.nowMs);
    if (offset === undefined) return INVALID_ARGUMENTS;

    const needle = (q ?? '').toLowerCase();
    const items: Product[] = [];
    let matched = 0;
    let more = false;
    for (let i = 0; i < CATALOG.length && !more; i++) {
      if (!HAYSTACKS[i]!.includes(needle)) continue;
      if (matched >= offset + pageSize) more = true;
      else if (matched >= offset) items.push(CATALOG[i]!);
      matched++;
    }
    const expiresAtMs = call.nowMs + settings.cursorTtlMs;
    const nextCursor = more ? settings.codec.encode({ offset: offset + items.length, paramsHash, expiresAtMs }) : null;
    // Like items.list's pages: exempt from broken-envelope, a fault about the envelope, not pagination.
    return { ...successReply({ items, next: nextCursor }), breakable: false };
  };
}

/** `catalog.get`: arg `sku` (a string); data the product, or 404 `not_found` for an unknown SKU. */
const get: MethodHandler = (args): Reply => {
  const { sku } = args;
  if (typeof sku !== 'string') return INVALID_ARGUMENTS;
  const product = BY_SKU.get(sku);
  return product === undefined ? NOT_FOUND : successReply(product);
};

type CatalogMethod = `catalog.${'search' | 'get'}`;

export function createCatalogMethods(settings: CatalogSettings): Readonly<Record<CatalogMethod, MethodHandler>> {
  return { 'catalog.search': search(settings), 'catalog.get': get };
}
