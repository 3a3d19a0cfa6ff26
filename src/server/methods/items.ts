/**
 * `items.list`: a paginated method over a generated data set, walked page by
 * page with signed cursors.
 */
import { INVALID_ARGUMENTS, successReply, type Reply } from '../reply.ts';
import { pageStart, paramsFingerprint, type CursorCodec } from './cursor.ts';
import type { MethodHandler } from './method.ts';

/** Page size of the `pagination-oversize` fault (over the conventions' maximum of 100). */
export const OVERSIZE_PAGE_SIZE = 150;
const MAX_PAGE_SIZE = 100;
const MAX_FILTER_LENGTH = 200;
/** Distinct filters whose matches are remembered (a walk repeats its filter on every page). */
const FILTER_CACHE_SIZE = 16;
const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;

export interface Item {
  readonly id: string;
  readonly name: string;
  readonly category: string;
  readonly priceCents: number;
}

/** Item number `index` of the generated data set: computed, never stored, so any size is cheap. */
export function itemAt(index: number): Item {
  const n = index + 1;
  return {
    id: `item-${String(n).padStart(6, '0')}`,
    name: `Item ${n}`,
    category: CATEGORIES[index % CATEGORIES.length]!,
    priceCents: (n * 7919) % 100_000,
  };
}

export interface ItemsListSettings {
  readonly itemCount: number;
  readonly defaultPageSize: number;
  readonly cursorTtlMs: number;
  readonly codec: CursorCodec;
  /** `pagination-empty-cursor`: the last page says next: "" instead of null. */
  readonly emptyLastCursor: boolean;
  /** `pagination-oversize`: every page holds OVERSIZE_PAGE_SIZE items. */
  readonly oversizePages: boolean;
}

/**
 * `items.list`: paginated over the generated data set. Args: optional `filter` (case-insensitive
 * substring of name or category), optional `pageSize` (1–100), `next` (a cursor from the previous
 * page, valid only with the same other arguments and until it expires).
 */
export function createItemsList(settings: ItemsListSettings): MethodHandler {
  const filterCache = new Map<string, Uint32Array>();
  const matchesOf = (filter: string): Uint32Array => {
    let matches = filterCache.get(filter);
    if (matches === undefined) {
      const needle = filter.toLowerCase();
      const found: number[] = [];
      for (let i = 0; i < settings.itemCount; i++) {
        const item = itemAt(i);
        if (item.name.toLowerCase().includes(needle) || item.category.includes(needle)) found.push(i);
      }
      matches = Uint32Array.from(found);
      if (filterCache.size >= FILTER_CACHE_SIZE) filterCache.delete(filterCache.keys().next().value!);
      filterCache.set(filter, matches);
    }
    return matches;
  };

  return (args, call): Reply => {
    const { filter, pageSize, next } = args;
    if (filter !== undefined && (typeof filter !== 'string' || filter.length > MAX_FILTER_LENGTH))
      return INVALID_ARGUMENTS;
    if (
      pageSize !== undefined &&
      !(Number.isInteger(pageSize) && (pageSize as number) >= 1 && (pageSize as number) <= MAX_PAGE_SIZE)
    )
      return INVALID_ARGUMENTS;

    const paramsHash = paramsFingerprint(args);
    const offset = pageStart(next, settings.codec, paramsHash, call.nowMs);
    if (offset === undefined) return INVALID_ARGUMENTS;

    const size = settings.oversizePages
      ? OVERSIZE_PAGE_SIZE
      : ((pageSize as number | undefined) ?? settings.defaultPageSize);
    const matches = filter === undefined || filter === '' ? undefined : matchesOf(filter);
    const total = matches?.length ?? settings.itemCount;
    const end = Math.min(offset + size, total);
    const items: Item[] = [];
    for (let k = offset; k < end; k++) items.push(itemAt(matches === undefined ? k : matches[k]!));
    const nextCursor =
      end < total
        ? settings.codec.encode({ offset: end, paramsHash, expiresAtMs: call.nowMs + settings.cursorTtlMs })
        : settings.emptyLastCursor
          ? ''
          : null;
    // Pages are exempt from broken-envelope: that fault is about the envelope, not pagination.
    return { ...successReply({ items, next: nextCursor }), breakable: false };
  };
}
