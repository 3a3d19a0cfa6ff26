/**
 * Pagination helpers (conventions: the result array in `data` plus the cursor `next`; repeat
 * exactly the same params and add `next`; `null` ends the walk).
 */

/**
 * Add `"next": cursor` to a serialized JSON object without parsing or re-serializing it, so every
 * page request repeats the first request's params byte for byte.
 */
export function appendCursor(bodyJson: string, cursor: string): string {
  const end = bodyJson.lastIndexOf('}');
  if (end === -1) throw new TypeError('appendCursor: body is not a JSON object');
  const inner = bodyJson.slice(0, end).trimEnd();
  const separator = inner.endsWith('{') ? '' : ',';
  return `${inner}${separator}"next":${JSON.stringify(cursor)}}`;
}

/** The page's result array: the named field, else the only array in `data`. */
export function locatePageArray(
  data: Readonly<Record<string, unknown>>,
  field?: string | null,
): { readonly field: string; readonly items: readonly unknown[] } | { readonly problem: string } {
  if (field) {
    const items = data[field];
    return Array.isArray(items) ? { field, items } : { problem: `data.${field} is not an array` };
  }
  const arrays = Object.entries(data).filter(([, value]) => Array.isArray(value));
  if (arrays.length === 1) return { field: arrays[0]![0], items: arrays[0]![1] as unknown[] };
  return {
    problem:
      arrays.length === 0
        ? 'data holds no array'
        : `data holds ${arrays.length} arrays (${arrays.map(([k]) => k).join(', ')}); name one`,
  };
}

/** The cursor for the following page: a non-empty string, or null (also when absent) at the end. */
export function readNextCursor(
  data: Readonly<Record<string, unknown>>,
): { readonly cursor: string | null } | { readonly problem: string } {
  const next = data.next;
  if (next === undefined || next === null) return { cursor: null };
  if (typeof next !== 'string') return { problem: `next is ${typeof next}, expected a string or null` };
  if (next.length === 0) return { problem: 'next is "", expected a cursor or null' };
  return { cursor: next };
}
