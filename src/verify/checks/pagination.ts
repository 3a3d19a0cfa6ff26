/**
 * The `pagination` check's procedure: each paginated method walked page by page,
 * following its `next` cursors.
 */
import { appendCursor, locatePageArray, readNextCursor } from '../../api/pagination.ts';
import { sanitizeText } from '../../util/sanitize.ts';
import { callPolitely } from '../bursts.ts';
import type { CheckDefinition } from '../check.ts';
import type { CheckContext } from '../check-context.ts';
import type { PaginatedMethod } from '../config.ts';
import { judgePagination, MAX_PAGE_ITEMS, type PageRecord, type WalkObservation } from '../verdicts/pagination.ts';

/** Pages walked at most per method: a long walk proves nothing more about the rules. */
const MAX_PAGES = 50;
/** Requests reserved up front per method (a longer walk waits out refusals politely). */
const RESERVED_PAGES = 12;

/** Walk one paginated method from its first page, repeating `{}` and adding `next`. */
async function walk(
  check: CheckContext,
  clientId: string,
  { method, field }: PaginatedMethod,
): Promise<WalkObservation> {
  const pages: PageRecord[] = [];
  const seenItems = new Set<string>();
  const seenCursors = new Set<string>();
  let usedField = field;
  let repeatedItems = 0;
  let firstRepeat: string | null = null;
  let cursor: string | null = null;
  const observation = (end: WalkObservation['end']): WalkObservation => ({
    method,
    field: usedField,
    pages,
    end,
    items: seenItems.size + repeatedItems,
    repeatedItems,
    firstRepeat,
  });

  while (pages.length < MAX_PAGES) {
    const { roundTrip, reply } = await callPolitely(check, {
      method,
      clientId,
      body: cursor === null ? '{}' : appendCursor('{}', cursor),
    });
    const data = reply.classification?.data ?? null;
    if (data === null) {
      pages.push({
        atMs: roundTrip.sentMs,
        items: null,
        next: '-',
        problem: `expected a success envelope, got HTTP ${roundTrip.status} ${roundTrip.outcome}`,
      });
      return observation('problem');
    }
    const located = locatePageArray(data, usedField);
    const next = readNextCursor(data);
    const items = 'items' in located ? located.items : null;
    const problem =
      'problem' in located
        ? located.problem
        : 'problem' in next
          ? next.problem
          : items!.length > MAX_PAGE_ITEMS
            ? `${items!.length} items on one page, at most ${MAX_PAGE_ITEMS} allowed`
            : null;
    pages.push({
      atMs: roundTrip.sentMs,
      items: items?.length ?? null,
      next: 'cursor' in next ? (next.cursor === null ? 'null' : 'string') : next.problem,
      problem,
    });
    if ('field' in located) usedField = located.field;
    for (const item of items ?? []) {
      const key = JSON.stringify(item);
      if (!seenItems.has(key)) seenItems.add(key);
      else if (repeatedItems++ === 0) firstRepeat = sanitizeText(key, 80);
    }
    if (problem !== null || !('cursor' in next)) return observation('problem');
    if (next.cursor === null) return observation('null-cursor');
    if (seenCursors.has(next.cursor)) return observation('cursor-cycle');
    seenCursors.add(next.cursor);
    cursor = next.cursor;
  }
  return observation('page-cap');
}

export const pagination: CheckDefinition = {
  id: 'pagination',
  plan: (config) =>
    config.paginated.length === 0
      ? 'no paginated method given (--paginated NAME[:ARRAYFIELD])'
      : {
          needs: [
            {
              kind: 'spare',
              requests: Math.max(1, Math.min(config.limit - 2, RESERVED_PAGES * config.paginated.length)),
            },
          ],
          countsQuota: false,
          estimateMs: 1000,
        },
  async run(check, [clientId]) {
    const walks: WalkObservation[] = [];
    for (const method of check.config.paginated) walks.push(await walk(check, clientId!, method));
    return judgePagination(walks);
  },
};
