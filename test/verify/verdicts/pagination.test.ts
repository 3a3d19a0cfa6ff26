import { describe, expect, it } from 'vitest';
import { judgePagination, type PageRecord, type WalkObservation } from '../../../src/verify/verdicts/pagination.ts';

const page = (items: number, next: string, problem: string | null = null): PageRecord => ({
  atMs: 0,
  items,
  next,
  problem,
});
const walk = (
  pages: PageRecord[],
  end: WalkObservation['end'],
  extra: Partial<WalkObservation> = {},
): WalkObservation => ({
  method: 'items.list',
  field: 'items',
  pages,
  end,
  items: pages.reduce((n, p) => n + (p.items ?? 0), 0),
  repeatedItems: 0,
  firstRepeat: null,
  ...extra,
});
const tenPages = [...Array.from({ length: 9 }, () => page(100, 'string')), page(100, 'null')];

describe('judgePagination', () => {
  it.each([
    // 10 pages, the last says next: null
    [
      'conformant',
      [walk(tenPages, 'null-cursor')],
      'pass',
      /items.list: 10 page\(s\), 1000 items, ended with next: null; no page over 100 items, no item repeated/,
    ],
    // a first page that is also the last, empty
    ['single empty page', [walk([page(0, 'null')], 'null-cursor')], 'pass', /1 page\(s\), 0 items/],
    // the last cursor is ""
    [
      'empty cursor',
      [
        walk(
          [
            page(100, 'string'),
            page(50, 'next is "", expected a cursor or null', 'next is "", expected a cursor or null'),
          ],
          'problem',
        ),
      ],
      'fail',
      /page 2: next is "", expected a cursor or null/,
    ],
    // 150 items on a page
    [
      'oversize page',
      [walk([page(150, 'string', '150 items on one page, at most 100 allowed')], 'problem')],
      'fail',
      /page 1: 150 items on one page/,
    ],
    // a cursor that comes back
    [
      'cursor cycle',
      [
        walk([page(100, 'string'), page(100, 'string')], 'cursor-cycle', {
          repeatedItems: 100,
          firstRepeat: '{"id":1}',
        }),
      ],
      'fail',
      /cursor already seen.*100 item\(s\) appeared twice, first \{"id":1\}/,
    ],
    // stopped at the cap without problems: passes, and says so
    [
      'page cap',
      [
        walk(
          Array.from({ length: 50 }, () => page(100, 'string')),
          'page-cap',
        ),
      ],
      'pass',
      /50 page\(s\), 5000 items \(stopped at the page cap\)/,
    ],
  ] as const)('%s', (_name, walks, verdict, detail) => {
    const result = judgePagination(walks);
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });
});
